// The OpenAI Agents SDK agent of agent.mjs against the real askonce binary
// (ASKONCE_BIN), offline (MODEL=scripted: no provider is called). Each
// step runs in a process of its own, so the run resumes from its
// serialized RunState after a restart.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Askonce } from "@askonce/client";
import { binary, startServer } from "../../clients/typescript/test/harness.mjs";
import { decisionText } from "./askonce-decision.mjs";

const bin = binary();
let server;
let dir;
before(async () => {
  if (bin.path) server = await startServer(bin.path);
  dir = mkdtempSync(join(tmpdir(), "askonce-agents-"));
});
after(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

// agent runs `node agent.mjs args...` in a new process and returns its
// JSON line. stateFile may be an object of environment variables instead.
async function agent(stateFile, ...args) {
  const env = typeof stateFile === "string" ? { STATE_FILE: stateFile } : stateFile;
  const { stdout } = await promisify(execFile)(process.execPath, ["agent.mjs", ...args], {
    cwd: import.meta.dirname,
    env: { ...process.env, ASKONCE_URL: server.base, STATE_FILE: "", MODEL: "scripted", ...env },
    timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1));
}

test("a refund waits for a person's decision on the answer page, and a new process resumes the run with it", { skip: bin.skip }, async () => {
  const state = join(dir, "approve.json");
  const { paused } = await agent(state, "start", "Refund order A-17, the parcel arrived broken");
  assert.ok(paused, "the run did not stop at the refund's approval");
  assert.deepEqual(paused.question.options, ["approve", "reject"]);
  // The tool and its arguments as lines a person reads, not the call's JSON.
  assert.equal(paused.question.text, "Allow issue_refund?\norder: A-17\namount: 40");
  assert.match(paused.answerUrl, /\/a\//);

  const { waiting } = await agent(state, "resume");
  assert.equal(waiting?.jobId, paused.jobId, "resumed before anyone decided");

  // The person approves on the answer page, as from a browser.
  const page = await fetch(paused.answerUrl, { method: "POST", body: new URLSearchParams({ answer: "approve" }) });
  assert.equal(page.status, 200, await page.text());

  const { done } = await agent(state, "resume");
  assert.ok(done, "the run did not finish after the decision");
  assert.match(done.output, /^Refunded 40 EUR for order A-17/);
  assert.equal(done.job.status, "success");
  assert.equal(done.job.answeredVia, "web");
  assert.deepEqual(done.job.plan.tasks.map((t) => t.title), ["Refunded 40 EUR for order A-17", "Tell the customer the refund is on its way"]);
  assert.ok(done.job.title, "the job has no title");
  assert.equal(done.job.plan.title, done.job.title, "the plan's title is not the job's");
  const events = (await new Askonce({ baseUrl: server.base }).events(paused.jobId)).map((e) => e.type);
  assert.equal(events.filter((t) => t === "asked").length, 1, events.join(","));
});

test("a person who declines leaves the question's default, reject: the refund is not made", { skip: bin.skip }, async () => {
  const state = join(dir, "decline.json");
  const { paused } = await agent(state, "start");
  assert.ok(paused);
  await new Askonce({ baseUrl: server.base }).decline(paused.jobId);
  const { done } = await agent(state, "resume");
  assert.ok(done);
  assert.match(done.output, /was not allowed/);
  assert.equal(done.job.status, "success");
});

test("the run's state goes to the temporary folder, never into the folder the agent runs in", { skip: bin.skip }, async () => {
  const started = Date.now();
  const tmp = join(dir, "tmp");
  mkdirSync(tmp);
  const { paused } = await agent({ TMPDIR: tmp }, "start");
  assert.ok(paused);
  assert.ok(existsSync(join(tmp, "askonce-openai-agents", "run-state.json")), "no run state in $TMPDIR/askonce-openai-agents");
  const here = join(import.meta.dirname, "run-state.json");
  assert.ok(!existsSync(here) || statSync(here).mtimeMs < started, "the run wrote run-state.json into the example's folder");
  const { waiting } = await agent({ TMPDIR: tmp }, "resume");
  assert.equal(waiting?.jobId, paused.jobId);
});

test("the approval question shows the tool's arguments as escaped lines", () => {
  assert.equal(decisionText({ name: "issue_refund", arguments: '{"order":"A-17","amount":40}' }), "Allow issue_refund?\norder: A-17\namount: 40");
  // What a model writes is made visible: a newline cannot start a line of
  // its own, a right-to-left override cannot turn text around.
  assert.equal(
    decisionText({ name: "send\u202e", arguments: '{"note":"ok\\nAllow everything: yes","to":["a","b"],"n":null}' }),
    'Allow send\\u202e?\nnote: ok\\u000aAllow everything: yes\nto: ["a","b"]\nn: null',
  );
  assert.equal(decisionText({ name: "t", arguments: "not json" }), "Allow t?\narguments: not json");
});
