// Runs the official conformance CLI (@modelcontextprotocol/conformance)
// with the arguments given, e.g.
//   node conformance.mjs server --url http://127.0.0.1:8080/mcp
// Its bundle imports fs.globSync (Node 22+) for its tier-check command
// alone; on older Node (Debian's 20) a module hook gives it an fs whose
// globSync says so, and every other command runs unchanged.
import fs from 'node:fs';
import { register } from 'node:module';

if (!fs.globSync) {
    register('./node20-hooks.mjs', import.meta.url);
}
await import('./node_modules/@modelcontextprotocol/conformance/dist/index.js');
