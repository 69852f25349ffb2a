// A runnable agent: a model (an OpenAI-compatible one through the AI SDK's
// provider of your choice) plans a goal and asks through askonce.
//
//   ASKONCE_URL=http://127.0.0.1:8080 node agent.mjs "Book a trip for the team"
//
// The model is whatever model.mjs exports: wire your provider there
// (e.g. `import { openai } from "@ai-sdk/openai"; export default openai("gpt-5-mini")`).
import { createInterface } from "node:readline/promises";
import { generateText, stepCountIs } from "ai";
import { Askonce } from "@askonce/client";
import { planWithAgent } from "./askonce-tool.mjs";

const { default: model } = await import(process.env.ASKONCE_MODEL_MODULE ?? "./model.mjs").catch(() => {
  console.error("agent.mjs: write model.mjs exporting an AI SDK language model (see the comment at the top)");
  process.exit(2);
});
const client = new Askonce({ baseUrl: process.env.ASKONCE_URL, apiKey: process.env.ASKONCE_API_KEY });
const rl = createInterface({ input: process.stdin, output: process.stdout });
const { job, result } = await planWithAgent({
  client,
  model,
  goal: process.argv[2] ?? "Book a trip for the team",
  generateText,
  stepCountIs,
  ask: async ({ question, answerUrl }) => {
    const opts = question.options ? ` (${question.options.join("/")})` : "";
    if (answerUrl) console.log(`or answer at ${answerUrl}`);
    return (await rl.question(`${question.text}${opts} `)).trim() || question.default || "";
  },
});
rl.close();
console.log(result.text);
console.log(`job ${job.jobId}: ${job.status}`);
