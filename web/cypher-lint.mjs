// Lints Cypher with Neo4j's own parser (@neo4j-cypher/language-support).
// stdin:  {"queries": {"name": "MATCH ..."}, "schema": {labels, relationshipTypes, propertyKeys}}
// stdout: {"name": [{"severity": 1, "message": "...", "offset": 12}], ...}
// Severity 1 is an error (the query would not run on Neo4j), 2 a warning.
import { lintCypherQuery } from "@neo4j-cypher/language-support";

let input = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) input += chunk;
const { queries, schema } = JSON.parse(input);

const report = {};
for (const [name, query] of Object.entries(queries)) {
  // Every $parameter is declared, so only real problems are reported.
  const parameters = {};
  for (const match of query.matchAll(/\$([A-Za-z_][A-Za-z0-9_]*)/g)) parameters[match[1]] = null;
  const { diagnostics } = lintCypherQuery(query, { ...schema, parameters });
  report[name] = diagnostics.map((d) => ({
    severity: d.severity,
    message: d.message,
    offset: d.offsets ? d.offsets.start : null,
  }));
}
process.stdout.write(JSON.stringify(report));
