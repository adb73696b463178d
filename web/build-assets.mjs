// Copies the browser builds that GraphiQL needs out of node_modules into the
// app's static folder, so /graphql works on a machine with no internet.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const target = join(here, "..", "hippograph", "server", "static", "vendor");
const files = {
  "react/umd/react.production.min.js": "react.production.min.js",
  "react-dom/umd/react-dom.production.min.js": "react-dom.production.min.js",
  "graphiql/graphiql.min.js": "graphiql.min.js",
  "graphiql/graphiql.min.css": "graphiql.min.css",
};

mkdirSync(target, { recursive: true });
for (const [source, name] of Object.entries(files)) {
  copyFileSync(join(here, "node_modules", source), join(target, name));
}
console.log(`copied ${Object.keys(files).length} GraphiQL assets to ${target}`);
