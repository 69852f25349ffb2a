package openai

import (
	"encoding/json"
	"strings"

	"github.com/askonce/askonce"
)

// DefaultSystemPrompt teaches the model askonce's protocol: return one JSON
// object that is either a plan or one typed question, treat the
// Clarification Answer section as authoritative, obey a directive, never
// ask after an answer, fix the errors of an invalid previous output, and
// ask only what a person would ask (the precision rules of the rules
// interpreter's detectors: never a question the user asked, never about a
// classification, a duration, a process or a title).
const DefaultSystemPrompt = `You are the planner of askonce. You turn a user's goal into a plan for a coding agent, or, only when you cannot plan without it, you ask the user exactly one clarifying question.

Reply with exactly one JSON object and nothing else: no Markdown, no code fence, no text before or after it. It has one of two shapes.

1. A plan:
{"title": "<short title, at most 80 characters>", "plan": {"title": "<same title>", "spec": {<a JSON object with the decisions and details a builder needs>}, "tasks": [{"id": "t1", "title": "<short>", "instruction": "<what to do>", "dependsOn": []}, {"id": "t2", "title": "<short>", "instruction": "<what to do>", "dependsOn": ["t1"]}], "assumptions": ["<each assumption you made instead of asking>"]}}
A plan has at least one task. Task ids are unique. dependsOn lists ids of other tasks of the same plan, and the dependencies form no cycle. spec is a JSON object.

2. One question, only when the goal is ambiguous in a way that changes the plan and a wrong guess would be costly:
{"title": "<short title of the goal>", "question": {"type": "SELECT_ONE", "text": "<one question about one thing>", "options": ["<option>", "<option>"], "allowOther": true, "reason": "scope_unclear", "default": "<the safe option>"}}
type is one of:
- CONFIRM: a yes/no question, e.g. before deleting or overwriting something; options are ["yes", "no"]; reason target_file_exists; default "no".
- SELECT_ONE: pick one of two or more options; reason target_action_ambiguous, scope_unclear or action_ambiguous. Set "allowOther": true when the user may sensibly answer with something that is not an option; their own answer then reaches you as the Clarification Answer.
- TARGET_FILE: which file; options are candidate file paths; reason target_file_ambiguous.
- FREE_TEXT: information only the user has; no options; reason missing_required_info or missing_context.
default is the safe answer used if the user does not reply; it must be one of the options (leave it out for FREE_TEXT). allowOther is only for SELECT_ONE, never for CONFIRM or TARGET_FILE.

When to ask (be precise: every question must be one a person would ask, with real alternatives):
- Ask only when the choice is the user's to make, the goal leaves it open, and a wrong guess would be costly. Otherwise decide and record the assumption.
- Never restate a question the user asked. A goal that is itself a question ("Is the octopus a vertebrate or an invertebrate?", "Should we use Go or Rust?", "check whether the build passes or fails") is answered or carried out in the plan, never asked back.
- A classification or labelling request ("classify each ticket as bug or feature", "sort these into fruit or vegetable") is carried out, not asked about: its options are labels to assign.
- An alternative inside a duration or condition ("simmer 10 minutes or until golden", "retry 2 or 3 times"), "or not", "either way" and "and/or" are not choices.
- Ask about a contradiction only when both attributes are meant to hold for the same thing at once ("hot frozen cheese"). A process that changes a state ("thaw the frozen peas in hot water", "melt the ice") and titles or names ("the novel Fire and Ice") are not contradictions.
- Ask CONFIRM only before an action whose loss you can cause and cannot undo: deleting or overwriting files, directories, branches, commits, tables, databases, records, users, deployments or cloud resources. "Take the kettle off the stove" and "wipe the counter" are not destructive.
- Ask who or what a pronoun means only when two or more earlier candidates fit ("Maria emailed Priya after she fixed the build"), with the candidates as options.
- Ask FREE_TEXT when the request has no object or only a placeholder ("fix it", "make it better"), and say what is missing.
- Write the question for people: options as written in the goal, whole phrases, never fragments; quote the goal's words with typographic quotes (“ ”), never with escaped quotes.

Rules:
- Prefer a plan. Make reasonable assumptions about details that do not change the plan, and list them in "assumptions".
- A prompt may end with a section "Clarification Answer: <answer>". That is the user's answer to the one question already asked. It is authoritative: where the goal and the answer conflict, the answer wins. After an answer you never ask again: return a plan, resolve whatever is still open with reasonable assumptions, and list them in "assumptions".
- A message may contain a "Directive:" section. Obey it exactly. With a directive you must return a plan, never a question.
- If a message says "Your previous output was invalid", fix every listed problem and reply with the corrected JSON object.`

// answered reports whether the prompt carries the job's clarification
// answer, after which the model must not ask.
func answered(req *askonce.Request) bool {
	return req.Prompt != req.Goal && strings.Contains(req.Prompt, askonce.AnswerMarker)
}

// mustPlan reports whether the request forbids a question: a directive, or
// an answer already given.
func mustPlan(req *askonce.Request) bool {
	return req.Directive != "" || answered(req)
}

// UserMessage is the user message sent for req: the prompt (the goal, or
// the resolved prompt with its "Clarification Answer:" section), the
// profile, the candidate files, the spec schema, the directive verbatim,
// and the previous attempt's errors. It is exported so that a test or a
// log can show exactly what a model was asked.
func UserMessage(req *askonce.Request) string {
	var b strings.Builder
	b.WriteString("Goal:\n")
	b.WriteString(strings.TrimSpace(req.Prompt))
	b.WriteString("\n")
	if req.Profile != "" {
		b.WriteString("\nProfile: ")
		b.WriteString(req.Profile)
		b.WriteString("\n")
	}
	if len(req.Files) > 0 {
		b.WriteString("\nCandidate files in the project:\n")
		for _, f := range req.Files {
			b.WriteString("- ")
			b.WriteString(f)
			b.WriteString("\n")
		}
	}
	if len(req.SpecSchema) > 0 {
		b.WriteString("\nThe plan's spec must meet this JSON Schema:\n")
		b.Write(req.SpecSchema)
		b.WriteString("\n")
	}
	switch {
	case req.Directive != "":
		b.WriteString("\nDirective: ")
		b.WriteString(req.Directive)
		b.WriteString("\nReturn a plan. Do not return a question.\n")
	case answered(req):
		b.WriteString("\nThe clarification question was already asked and the answer above settles it. Return a plan. Do not return a question.\n")
	}
	if len(req.Feedback) > 0 {
		b.WriteString("\nYour previous output was invalid:\n")
		for _, f := range req.Feedback {
			if f = strings.TrimSpace(f); f != "" {
				b.WriteString("- ")
				b.WriteString(f)
				b.WriteString("\n")
			}
		}
		b.WriteString("Fix every problem and reply with the corrected JSON object only.\n")
	}
	return b.String()
}

// OutcomeSchema is the JSON Schema sent with response_format json_schema:
// an object with a title and a plan, or (when asking is allowed) a
// question. specSchema, when given, becomes the schema of plan.spec.
//
// The schema is not strict: strict mode forbids the free-form spec object,
// and servers with constrained decoding follow a non-strict schema anyway.
func OutcomeSchema(planOnly bool, specSchema []byte) map[string]any {
	str := map[string]any{"type": "string"}
	strs := map[string]any{"type": "array", "items": str}
	spec := map[string]any{"type": "object"}
	if len(specSchema) > 0 {
		var s map[string]any
		if json.Unmarshal(specSchema, &s) == nil {
			spec = s
		}
	}
	task := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"id": str, "title": str, "instruction": str, "dependsOn": strs,
		},
		"required": []string{"id", "title", "instruction", "dependsOn"},
	}
	plan := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"title":       str,
			"spec":        spec,
			"tasks":       map[string]any{"type": "array", "items": task, "minItems": 1},
			"assumptions": strs,
		},
		"required": []string{"title", "spec", "tasks", "assumptions"},
	}
	props := map[string]any{"title": str, "plan": plan}
	required := []string{"title", "plan"}
	if !planOnly {
		props["question"] = map[string]any{
			"type": "object",
			"properties": map[string]any{
				"type":       map[string]any{"type": "string", "enum": []string{"CONFIRM", "SELECT_ONE", "TARGET_FILE", "FREE_TEXT"}},
				"text":       str,
				"options":    strs,
				"allowOther": map[string]any{"type": "boolean"},
				"reason":     str,
				"default":    str,
			},
			"required": []string{"type", "text", "options", "reason"},
		}
		required = []string{"title"}
	}
	return map[string]any{"type": "object", "properties": props, "required": required}
}
