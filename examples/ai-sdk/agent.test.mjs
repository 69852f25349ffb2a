// The AI SDK's own mock language model drives the ask_user tool against the
// real askonce binary (ASKONCE_BIN): however often the model asks, the
// person is asked once. Offline: no model provider is called.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { Askonce } from "@askonce/client";
import { planWithAgent } from "./askonce-tool.mjs";
import { binary, startServer } from "../../clients/typescript/test/harness.mjs";

const bin = binary();
let server;
before(async () => { if (bin.path) server = await startServer(bin.path); });
after(async () => { await server?.stop(); });

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const toolCall = (id, input) => ({
  content: [{ type: "tool-call", toolCallId: id, toolName: "ask_user", input: JSON.stringify(input) }],
  finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [],
});

// A model that asks which city, asks again after the answer (as models do),
// then writes the plan with what the tool returned.
function scriptedModel() {
  const calls = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      calls.push(options.prompt);
      const results = options.prompt.flatMap((m) => (m.role === "tool" ? m.content : []));
      if (results.length === 0) return toolCall("c1", { question: "Which city?", options: ["Paris", "Rome"], default: "Paris" });
      if (results.length === 1) return toolCall("c2", { question: "Are you sure about the city?", options: ["yes", "no"] });
      const first = JSON.stringify(results[0].output);
      const city = first.includes("Rome") ? "Rome" : "Paris";
      return {
        content: [{ type: "text", text: `1. Book flights to ${city}\n2. Book a hotel in ${city}` }],
        finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [],
      };
    },
  });
  return { model, calls };
}

test("the model's ask_user calls reach the person once; the second gets askonce's directive", { skip: bin.skip }, async () => {
  const client = new Askonce({ baseUrl: server.base });
  const { model, calls } = scriptedModel();
  const asked = [];
  const { job, result } = await planWithAgent({
    client, model, goal: "Book a trip for the team", generateText, stepCountIs,
    ask: async ({ question, answerUrl }) => {
      asked.push({ question, answerUrl });
      return "Rome";
    },
  });
  assert.equal(asked.length, 1, "the person was asked more than once");
  assert.equal(asked[0].question.text, "Which city?");
  assert.match(asked[0].answerUrl, /\/a\//);
  assert.equal(calls.length, 3);
  const toolResults = result.steps.flatMap((s) => s.toolResults);
  assert.deepEqual(toolResults[0].output, { answer: "Rome" });
  assert.ok(toolResults[1].output.directive, JSON.stringify(toolResults[1].output));
  assert.equal(job.status, "success");
  assert.deepEqual(job.plan.tasks.map((t) => t.title), ["Book flights to Rome", "Book a hotel in Rome"]);
  const events = (await client.events(job.jobId)).map((e) => e.type);
  assert.equal(events.filter((t) => t === "asked").length, 1, events.join(","));
  assert.equal(events.filter((t) => t === "answered").length, 1, events.join(","));
});
