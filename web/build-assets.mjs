// Copies the browser builds that the app's pages need out of node_modules into
// its static folder, so /graphql (GraphiQL) and /explore (cytoscape.js with
// the dagre layout) work on a machine with no internet.
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const target = join(here, "..", "hippograph", "server", "static", "vendor");
const files = {
  "react/umd/react.production.min.js": "react.production.min.js",
  "react-dom/umd/react-dom.production.min.js": "react-dom.production.min.js",
  "graphiql/graphiql.min.js": "graphiql.min.js",
  "graphiql/graphiql.min.css": "graphiql.min.css",
  "cytoscape/dist/cytoscape.min.js": "cytoscape.min.js",
  "cytoscape/LICENSE": "cytoscape.LICENSE.txt",
  // this build bundles dagre itself (@dagrejs/dagre, MIT): no third file to copy
  "cytoscape-dagre/dist/cytoscape-dagre.min.js": "cytoscape-dagre.min.js",
  "cytoscape-dagre/LICENSE": "cytoscape-dagre.LICENSE.txt",
};

mkdirSync(target, { recursive: true });
for (const [source, name] of Object.entries(files)) {
  copyFileSync(join(here, "node_modules", source), join(target, name));
}
// The Makefile's sentinel: written last, so a run that failed half-way is redone.
writeFileSync(join(target, ".built"), Object.values(files).join("\n") + "\n");
console.log(`copied ${Object.keys(files).length} browser assets to ${target}`);
