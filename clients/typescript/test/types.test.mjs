// The declarations compile against the generated types (tsc over
// index.d.ts and test/typed.ts, which also expects wrong calls to fail).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

test("index.d.ts and the generated types compile, and refuse wrong calls", () => {
  const dir = fileURLToPath(new URL("..", import.meta.url));
  const r = spawnSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.json"], { cwd: dir, encoding: "utf8" });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
