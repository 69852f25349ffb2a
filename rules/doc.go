// Package rules is askonce's embedded default interpreter: deterministic,
// offline and cheap (no model, no network; a round trip is a few
// microseconds). It reads a goal with rules from a profile, and returns
// either a plan or exactly one typed question, as the JSON that
// askonce.ParseOutcome reads. It asks only about what is grounded: two
// values of one attribute in the command itself, a command that destroys
// named data, a reference that fits two or more of the request's
// candidates or files, a required field of the spec schema that the goal
// leaves open, and a choice the user asks the agent to make between named
// alternatives. Open-ended ambiguity (pronouns, "fix it") is left to a
// model.
//
// # Profiles
//
// Request.Profile selects a profile by name or alias; empty selects
// DefaultProfile ("general"). An unknown name is an EINVALID error (a
// configuration error; use Interpreter.HasProfile to reject it early).
// Two profiles are embedded, profiles/general.json (agent tasks) and
// profiles/minecraft-mod.json (mod generation, with gating). Options.ProfileFiles replaces
// one of them, or adds a profile, from a user's file; LoadProfile reads
// the same format from any reader.
//
// A profile is one JSON object (unknown keys are an error):
//
//	{
//	  "name": "general",                    // lower case, no spaces
//	  "aliases": ["minecraft"],             // other names selecting it
//	  "description": "...",
//	  "checks": ["contradiction", "destructive", "candidates", "specSchema", "choice"],
//	  "planner": "steps",                   // or "template"
//	  "gating": {"label": "Block-only mod", "words": ["block", "ore"]},
//	  "groups": [{                          // mutually exclusive sides
//	    "name": "temperature", "property": "temperature", "cosmetic": false,
//	    "sides": [
//	      {"name": "hot",  "words": ["hot", "fire"], "forms": {"burns": "burning"}},
//	      {"name": "cold", "words": ["cold", "frozen"]}]}],
//	  "properties": [{"name": "hardness", "default": "normal",
//	                  "values": {"hard": ["hard", "tough"]}}],
//	  "kinds": [{"kind": "block", "words": ["block", "ore"]}],
//	  "defaultKind": "block",
//	  "tasks": [{"id": "spec", "title": "Define {name}", "instruction": "...",
//	             "dependsOn": [], "kinds": ["block"]}],
//	  "destructive": ["delete"], "destructiveCommands": ["rm -rf"], "objects": ["branch"],
//	  "stopWords": [], "functionalCues": [], "negations": [],
//	  "determiners": [], "freeChoice": [], "orWords": [], "orIgnore": [],
//	  "conjunctions": [], "stepSeparators": [], "connectors": [], "parallelCues": [],
//	  "suggestVerbs": [], "placeholders": [], "vagueWords": [], "questionWords": [],
//	  "requestOpeners": [], "prepositions": [], "conditions": [], "changeVerbs": [],
//	  "idioms": []
//	}
//
// The checks are contradiction, destructive, candidates, specSchema,
// choice and vague (opt-in: a goal that names nothing to act on; the
// general profile leaves it out, minecraft-mod uses it). The word lists at
// the end add to the embedded base lists of words.json (closed classes in
// English and Japanese: determiners, negations, question words,
// prepositions, connectors; the verbs and objects of destructive
// commands); they never replace them. The yes/no vocabulary is not a profile's: it is
// askonce's one list (internal/lex), shared with answer validation. A list entry of several words is a phrase.
// Group, property and kind words must be single words; a word may sit on
// only one side of a group. The template planner's tasks may use {name},
// {id}, {kind}, {properties} and {goal}; a task limited to other kinds is
// left out and its dependants inherit its dependencies.
//
// # Words
//
// Everything matches whole tokens, never substrings: "notes.md" is not
// "no", "scold" is not "cold". Text is split by askonce's one tokenizer
// (internal/lex, also used by the resolver): it is lower-cased and split at white
// space and punctuation; '.', '/', '-', '_' stay inside a token
// (notes.md, src/main.go, force-push) and a trailing '.' is dropped.
// Japanese is split at Japanese punctuation (、。！？「」) and where the
// script changes (kanji, hiragana, katakana), keeping a kanji word's kana
// ending; a Japanese word also matches by its kanji stem (削除して finds
// 削除) and a ない ending negates it. A word right after a negation ("not
// cold", "don't delete"), or after a negation and one stop word, does not
// count. Misspelt words are not corrected: a guessed word could only
// create a question the goal does not ground.
//
// # Commands
//
// The detectors read structure rather than phrasings. A command is a
// clause, or a part of one after "and" or "then", whose first word after
// connectors and request openers ("first", "please", "can you") is its
// main verb; a clause that opens with a closed-class word (a determiner,
// pronoun, preposition, negation or question word) is none. A sentence
// that opens with a question word, or ends with "?" without opening with a
// verb, asks the agent something: nothing in it is asked back. Japanese
// puts the verb last; the destructive check reads it there.
//
// # Detectors
//
// The prompt is the goal, or the resolved prompt goal + "\n\nClarification
// Answer: " + answer (docs/protocol.md rule 4), split at the markers: the
// last section is the answer that counts. Each detector has its own file
// and table test and returns its own findings (read in pipeline.go); one
// place then chooses the question: the first open finding in the profile's
// "checks" order. Each question depends on the goal only, so a repeated
// question has the same text. docs/interpreters.md lists what each
// ignores.
//
//   - contradiction: two sides of one group meant to hold for one object at
//     once ("hot frozen cheese"), not in a question to the agent or a
//     topic ("a poem about fire and ice"), a process
//     that changes a state ("thaw the frozen peas"), sides of different
//     objects, alternatives, titles, names or idioms. SELECT_ONE, reason
//     scope_unclear, allowOther, options the sides as the goal shows them,
//     cosmetic as the group says; functional groups first. The answer
//     settles it when it names one side (any side), or rejects one of two
//     ("not hot"); the other sides' words are dropped from the plan's text.
//   - destructive: a command whose main verb is destructive and whose
//     object is data (a data word, a path, a request's file; a table when
//     dropped or truncated), or a destructive command ("rm -rf", "git push
//     --force") as the command. CONFIRM, reason target_file_exists, default
//     "no". A reply of yes keeps the actions; no drops them with an
//     assumption; a reply that is both ("yes, no, wait") settles nothing.
//   - candidates: a noun phrase whose head word is the head word (last
//     word) of two or more Request.Candidates and that names none whole
//     ("use the pepper" with black pepper and bell pepper), matched whole
//     word, case- and plural-insensitive; in Japanese by the end of a
//     candidate at a script boundary (胡椒 in 黒胡椒). One fitting candidate
//     is used and named in the plan. SELECT_ONE, reason
//     target_action_ambiguous, allowOther. Files: "the file" (このファイル)
//     or a base name two files share asks TARGET_FILE, reason
//     target_file_ambiguous, unless the goal names a file; the answer may
//     be an offered file, a relative path inside the project or a root
//     word (".").
//   - specSchema: the first required field of Request.SpecSchema that the
//     goal leaves open or fills twice: SELECT_ONE over its enum (or
//     oneOf/anyOf consts), CONFIRM for a boolean, FREE_TEXT otherwise;
//     reason missing_required_info. The value lands in the plan's spec,
//     which keeps to the schema (only its properties when it allows no
//     others).
//   - choice: named alternatives joined by "or" that are the object of a
//     command's main verb, directly or after one preposition ("deploy to
//     staging or production"), parallel ("the red cup or the blue cup"),
//     names when the object is bare ("use React or Vue"; "use olive oil or
//     butter" is a substitution), and not indefinite ("a towel or a rag"),
//     under a negation, a free choice ("any", "to taste"), a suggestion
//     verb ("serve"), numbers or a condition. SELECT_ONE, reason action_ambiguous, allowOther, options
//     the user's whole phrases.
//   - vague (opt-in): a goal with no word naming something to act on
//     ("make a mod"). FREE_TEXT, reason missing_required_info. An answer
//     with such a word settles it and the plan is made from goal + answer.
//
// An answer that settles nothing ("banana", an other answer to an
// allowOther question) leaves the question asked again, and the engine's
// hard cap applies. Question texts use typographic quotes (“ ”, or 「」)
// and the words of the goal as written, in the language most of the goal
// is written in.
//
// # Resolution rule
//
// With Request.Directive set (askonce.FallbackDirective or
// askonce.GatingDirective) the interpreter never asks. Whatever the answer
// does not settle is resolved by rule, and each choice is written to
// plan.assumptions as a sentence:
//
//   - contradiction: the functional side first — a side is functional
//     when its word follows a functional cue (that, which, should, must,
//     can, to, will, when, so) in the same clause, as in "a hot block that
//     freezes water" (cold) — else the first-mentioned side;
//   - destructive: skipped (the safe side);
//   - candidates and files: the first that fits;
//   - specSchema: the schema's default, else the first choice, false, 0,
//     or the goal for a string;
//   - choice: the first option;
//   - vague: the goal as written.
//
// Every question also carries this rule's choice as its default (no for
// CONFIRM; none for FREE_TEXT), so a timeout or decline gives the same
// result as the directive.
//
// # Gating
//
// A profile's "gating" makes Interpreter.Gate (askonce.Gater) let a goal
// that names one of its words proceed instead of asking a cosmetic
// question (docs/protocol.md rule 8); minecraft-mod gates block-only goals.
//
// # Plans
//
// The steps planner makes one task per step: the items of a numbered or
// bulleted list (two or more lines such as "1." "2)" "-"), else the
// sentences, each split further at "then" / "after that". Ids are t1, t2,
// ...; each task depends on the one before (a chain), except that a step
// with a parallel cue ("in parallel", "meanwhile") shares the dependencies
// of the step before it, and the next step depends on both. The spec is
// {"goal", "details", "attributes", "target", "choices", "destructive",
// "answer", "steps"}.
//
// The template planner (minecraft-mod) makes the spec {"name", "id",
// "kind", "properties", "description", "answer"}: the name from the
// first sentence's content words before any functional cue, with the kind
// word named; the kind from the first kind word (else defaultKind, with
// an assumption); properties from the settled group sides and the
// property words (colour, hardness, light). Its tasks are the profile's
// template for that kind, e.g. spec, then texture and model in parallel,
// then register, then language, recipe and loot, then test.
//
// Request.Feedback is ignored: the output is always valid.
//
// # Usage
//
// Usage reports zero cost. PromptTokens is the number of words of the
// prompt and directive and CompletionTokens that of the raw output, a word
// being a run of letters or digits: a cheap, deterministic stand-in for
// model tokens.
package rules
