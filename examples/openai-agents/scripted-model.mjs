// ScriptedModel is an offline model for the OpenAI Agents SDK (its Model
// interface): no provider is called. It asks for a refund of order A-17
// through issue_refund, then says what came of it. It reads only the
// run's input items, so it is the same in every process.
import { Usage } from "@openai/agents";

const text = (s) => ({ type: "message", role: "assistant", status: "completed", id: "msg_done", content: [{ type: "output_text", text: s }] });

export class ScriptedModel {
  async getResponse(request) {
    const items = Array.isArray(request.input) ? request.input : [];
    const result = items.find((i) => i.type === "function_call_result" && i.name === "issue_refund");
    const usage = new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    if (!result) {
      return {
        usage,
        responseId: "resp_call",
        output: [{ type: "function_call", id: "fc_refund", callId: "call_refund", name: "issue_refund", arguments: JSON.stringify({ order: "A-17", amount: 40 }), status: "completed" }],
      };
    }
    const said = JSON.stringify(result.output);
    return {
      usage,
      responseId: "resp_done",
      output: [
        said.includes("refunded")
          ? text("Refunded 40 EUR for order A-17\nTell the customer the refund is on its way")
          : text("The refund for order A-17 was not allowed\nOffer the customer a replacement instead"),
      ],
    };
  }

  async *getStreamedResponse() {
    throw new Error("ScriptedModel does not stream");
  }
}
