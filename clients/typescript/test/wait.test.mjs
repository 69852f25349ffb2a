// waitJob against the real binary with a planner that takes a second per
// call, so that jobs stay planning for a while.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Askonce } from "../index.js";
import { binary, startServer, recordingFetch, slowPlugin, session } from "./harness.mjs";

const bin = binary();
let server;
before(async () => { if (bin.path) server = await startServer(bin.path, ["--interpreter", "exec"], slowPlugin(1)); });
after(async () => { await server?.stop(); });
const t = (name, fn) => test(name, { skip: bin.skip }, fn);
const goal = "Write the report in markdown or html";

t("respondAsync answers planning and waitJob follows the job to its question, then its plan", async () => {
  const c = new Askonce({ baseUrl: server.base });
  const job = await c.createJob({ goal, sessionId: session() }, { respondAsync: true });
  assert.equal(job.status, "planning");
  const seen = [];
  const asked = await c.waitJob(job.jobId, { timeoutMs: 30_000, onEvent: (e) => seen.push(e.type) });
  assert.equal(asked.status, "pending");
  assert.deepEqual(asked.clarificationOptions, ["markdown", "html"]);
  assert.ok(seen.includes("asked"), seen.join(","));
  const answered = await c.answer(job.jobId, "html", { respondAsync: true });
  assert.equal(answered.status, "planning");
  assert.equal((await c.waitJob(job.jobId, { timeoutMs: 30_000 })).status, "success");
});

t("waitJob reconnects with Last-Event-ID when the stream breaks", async () => {
  const f = recordingFetch({ cutStreams: 1 });
  const c = new Askonce({ baseUrl: server.base, fetch: f });
  const job = await c.createJob({ goal, sessionId: session() }, { respondAsync: true });
  const ids = [];
  const asked = await c.waitJob(job.jobId, { timeoutMs: 30_000, onEvent: (e) => ids.push(e.id) });
  assert.equal(asked.status, "pending");
  assert.deepEqual(ids, [...new Set(ids)].sort((a, b) => a - b), "an event was repeated or reordered");
  const streams = f.streams();
  assert.ok(streams.length >= 2, `${streams.length} streams`);
  assert.equal(streams[1].headers["last-event-id"], String(ids[0]));
});

t("waitJob gives up after timeoutMs", async () => {
  const c = new Askonce({ baseUrl: server.base });
  const job = await c.createJob({ goal, sessionId: session() }, { respondAsync: true });
  const err = await c.waitJob(job.jobId, { timeoutMs: 200 }).catch((e) => e);
  assert.equal(err.name, "TimeoutError");
});
