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
// ask only in the five grounded cases of issue 20 (a contradiction, a
// destructive command, a reference matching several candidates or files,
// a required spec field left open or filled twice, an explicit choice),
// never handing the user's question back, in the goal's language, with
// the user's whole phrases as options, and with a default only where
// someone chose it (a destructive step's "no", the schema's default;
// docs/protocol.md rule 17).
const DefaultSystemPrompt = `You are the planner of askonce. You turn a user's goal into a plan for a coding agent, or, only when you cannot plan without it, you ask the user exactly one clarifying question.

Reply with exactly one JSON object and nothing else: no Markdown, no code fence, no text before or after it. It has one of two shapes.

1. A plan:
{"title": "<short title, at most 80 characters>", "plan": {"title": "<same title>", "spec": {<a JSON object with the decisions and details a builder needs>}, "tasks": [{"id": "t1", "title": "<short>", "instruction": "<what to do>", "dependsOn": []}, {"id": "t2", "title": "<short>", "instruction": "<what to do>", "dependsOn": ["t1"]}], "assumptions": ["<each assumption you made instead of asking>"]}}
A plan has at least one task. Task ids are unique. dependsOn lists ids of other tasks of the same plan, and the dependencies form no cycle. spec is a JSON object.

2. One question, only when the goal is ambiguous in a way that changes the plan and a wrong guess would be costly:
{"title": "<short title of the goal>", "question": {"type": "SELECT_ONE", "text": "<one question about one thing>", "options": ["<option>", "<option>"], "allowOther": true, "reason": "scope_unclear"}}
type is one of:
- CONFIRM: a yes/no question, e.g. before deleting or overwriting something; options are ["yes", "no"]; reason target_file_exists; default "no".
- SELECT_ONE: pick one of two or more options; reason target_action_ambiguous, scope_unclear or action_ambiguous. Set "allowOther": true when the user may sensibly answer with something that is not an option; their own answer then reaches you as the Clarification Answer.
- TARGET_FILE: which file; options are candidate file paths; reason target_file_ambiguous.
- FREE_TEXT: information only the user has; no options; reason missing_required_info or missing_context.
default is the answer used when the user does not reply, so it answers for them: give one only where someone chose it, "no" for a destructive CONFIRM and a spec field's "default" from its schema, and leave it out everywhere else. Never make an option the default because it comes first or seems likely; a question nobody answers then expires, which is right. allowOther is only for SELECT_ONE, never for CONFIRM or TARGET_FILE.

When to ask. Ask in exactly these five cases, each grounded in the goal, the candidate files, the candidates or the spec schema you are given; otherwise plan, and record what you assumed:
1. A contradiction: the command itself gives two values of one attribute of one thing at once ("hot frozen cheese", "a public private repository"). SELECT_ONE with the two values as options. A process that changes a state ("thaw the frozen peas", "make the private repo public", "heat the cold soup") a title or name ("the novel Fire and Ice") and values of two different things ("keep the soup hot and the dessert frozen") are not contradictions.
2. A destructive command: the main verb of the command deletes, overwrites, drops, truncates or force-pushes named data (files, directories, branches, tables, databases, accounts, records). CONFIRM, reason target_file_exists, default "no". A topic ("write a blog post about why I deleted my account"), an adjective ("an empty glass jar") and a physical move ("remove the baking sheet from the oven", "clear the table") are not destructive, nor, in Japanese, a deletion that is a modifier or the topic of another verb ("アカウントを削除した理由について書いて", "古いブランチを削除する方法を説明して").
3. An ambiguous reference: a thing the command acts on matches two or more of the candidates (or two or more of the candidate files) and none of them exactly. "pick up the cup" with candidates "red cup" and "blue cup" asks SELECT_ONE ["red cup", "blue cup"] (TARGET_FILE over the matching files for files); "pick up the red cup" plans, and so do "put all the cups in the sink" and "wipe every cup" (a universal quantifier means every matching candidate). Matching is by whole words, ignoring case and plural.
4. A required field of the spec schema that the goal leaves open or fills twice: SELECT_ONE over its enum (or its oneOf consts), CONFIRM for a boolean, FREE_TEXT otherwise. A boolean the goal states in the field's own words is filled, not open: "as a dry run" is true, "no dry run" and "without notifying" are false. A field whose schema gives a default is not open either: use the default and record it in "assumptions". The answer goes into the plan's spec. When two or more required fields are open, ask them together in the one question: give it "fields" (at most 5), one per open field, each {"name": "<the field's name>", "type": "<CONFIRM, SELECT_ONE, TARGET_FILE or FREE_TEXT>", "text": "<the question about this field>", "options": [...], "default": "<the schema's default for the field, only if it has one>", "required": true}, and make "text" a short heading; the answer then reaches you as one "name: value" line per field after "Clarification Answer: ".
5. An explicit choice between named alternatives that are the object of the main verb of a command: "deploy to staging or production" asks SELECT_ONE ["staging", "production"].
Never ask in any other case. In particular:
- Never hand the user's own question back. A goal that is a question, or context followed by a question ("Marcus told Daniel that he had lost the keys. Who lost the keys?", "Is a tomato a fruit or a vegetable?"), is answered in the plan: the user is the one asking.
- Never ask inside a classification, comparison or "write about" task ("classify each as solid, liquid or gas", "compare Python and Rust", "write a poem about hot summers and frozen winters"): its alternatives are labels or topics.
- Never ask about alternatives under a negation ("careful not to break the yolk or get shells"), after "any", "as desired" or "to taste", in a serving or purpose suggestion ("serve with ketchup or mustard"), when both are meant ("remove any dirt or beards"), when the user lets you pick ("either, whichever is cheaper"), or inside a duration or condition ("bake 25 minutes or until golden").
- Never ask whom a pronoun means, and never ask for details you can assume.
How to ask: write the question in the language most of the goal is written in (a stray character of another script does not change it). Options are the user's own whole phrases, never fragments ("George R.R. Martin", not "Martin"; "olive oil", not "olive"), or the candidates and files exactly as given. Quote the goal's words with typographic quotes (“ ”), never with escaped quotes.

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
// profile, the candidate files, the candidates, the spec schema, the directive verbatim,
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
	if len(req.Candidates) > 0 {
		b.WriteString("\nCandidates (the things besides files the builder can act on):\n")
		for _, c := range req.Candidates {
			b.WriteString("- ")
			b.WriteString(c)
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
		types := make([]string, len(askonce.QuestionTypes))
		for i, t := range askonce.QuestionTypes {
			types[i] = string(t)
		}
		qtype := map[string]any{"type": "string", "enum": types}
		props["question"] = map[string]any{
			"type": "object",
			"properties": map[string]any{
				"type":       qtype,
				"text":       str,
				"options":    strs,
				"allowOther": map[string]any{"type": "boolean"},
				"reason":     str,
				"default":    str,
				"fields": map[string]any{"type": "array", "maxItems": askonce.MaxFields, "items": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"name":       str,
						"type":       qtype,
						"text":       str,
						"options":    strs,
						"default":    str,
						"allowOther": map[string]any{"type": "boolean"},
						"required":   map[string]any{"type": "boolean"},
					},
					"required": []string{"name", "type", "text"},
				}},
			},
			"required": []string{"type", "text", "options", "reason"},
		}
		required = []string{"title"}
	}
	return map[string]any{"type": "object", "properties": props, "required": required}
}
