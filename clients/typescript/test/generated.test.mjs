// openapi.d.ts is a fresh generation from the built binary's document, so
// an API change that was not regenerated (npm run generate) fails here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { generate, outFile } from "../scripts/generate.mjs";
import { binary, startServer } from "./harness.mjs";

const bin = binary();

test("openapi.d.ts is generated from the served OpenAPI document", { skip: bin.skip }, async () => {
  const server = await startServer(bin.path);
  let doc;
  try {
    doc = await (await fetch(`${server.base}/openapi.json`)).json();
  } finally {
    await server.stop();
  }
  const committed = await readFile(outFile, "utf8");
  assert.ok(committed === (await generate(doc)), "openapi.d.ts is stale: run npm run generate against a server of this version");
});
