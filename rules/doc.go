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
// model. docs/interpreters.md shows each detector's questions and what it
// deliberately ignores; each detector's own doc comment states its rules.
//
// # Profiles
//
// Request.Profile selects a profile by name or alias; empty selects
// DefaultProfile ("general"). An unknown name is an EINVALID error (use
// Interpreter.HasProfile to reject it early). Two profiles are embedded,
// profiles/general.json (agent tasks) and profiles/minecraft-mod.json (mod
// generation, with gating); Options.ProfileFiles replaces one or adds one
// from a user's file, and LoadProfile reads the same format. A profile is
// one JSON object, unknown keys being an error (see Profile and
// docs/interpreters.md): its checks in the order they are asked
// (contradiction, destructive, candidates, specSchema, choice and the
// opt-in vague), its planner (steps or template), the groups of mutually
// exclusive sides the contradiction check reads, the template planner's
// properties, kinds and tasks, its gating, and its own domain words
// (Words), which add to the grammar of words.json.
//
// # Words
//
// Everything matches whole tokens, never substrings: "notes.md" is not
// "no", "scold" is not "cold". Text is split by askonce's one tokenizer
// (internal/lex, also used by the resolver and answer validation, with the
// one yes/no vocabulary). A Japanese word also matches by its kanji stem
// (削除して finds 削除) and a ない ending negates it. A word right after
// a negation ("not cold", "don't delete"), or after a negation and one
// stop word, does not count. Misspelt words are not corrected: a guessed
// word could only create a question the goal does not ground.
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
// Answer: " + answer (docs/protocol.md rule 4): the last answer section
// counts. Each detector has its own file and table test and returns its
// own finding (pipeline.go); the question asked is the first open finding
// in the profile's "checks" order, and depends on the goal only, so a
// repeated question has the same text. An answer settles a SELECT_ONE
// finding when it names one option (equal, a unique prefix, or the words
// of exactly one option); one that settles nothing leaves the question
// asked again, and the engine's hard cap applies. Questions use
// typographic quotes (“ ”, or 「」), the user's whole phrases as options,
// and the language most of the goal is written in.
//
//   - contradiction (contradiction.go): SELECT_ONE, scope_unclear.
//   - destructive (destructive.go): CONFIRM, target_file_exists, default no.
//   - candidates (candidates.go): SELECT_ONE, target_action_ambiguous, or
//     TARGET_FILE, target_file_ambiguous, for files.
//   - specSchema (schema.go): SELECT_ONE, CONFIRM or FREE_TEXT,
//     missing_required_info.
//   - choice (choice.go): SELECT_ONE, action_ambiguous.
//   - vague (vague.go, opt-in): FREE_TEXT, missing_required_info.
//
// # Resolution rule
//
// With Request.Directive set the interpreter never asks. Whatever the
// answer does not settle is resolved by rule, and each choice is written
// to plan.assumptions: a contradiction takes the functional side (named
// after a functional cue such as "that" or "to": "a hot block that
// freezes water" is cold), else the first-mentioned; a destructive action
// is skipped; a reference takes the first fitting candidate or file; a
// schema field its default, else the first choice, false, 0 or the goal;
// a choice its first option; a vague goal is planned as written. Every
// question carries this choice as its default (no for CONFIRM, none for
// FREE_TEXT), so a timeout or decline gives the same result.
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
// bulleted list, else the sentences, each split further at "then" / "after
// that"; each task depends on the one before, except that a step with a
// parallel cue ("in parallel", "meanwhile") shares the dependencies of the
// step before it. The template planner (minecraft-mod) reads the name,
// kind and properties of the thing the goal names and plans the profile's
// task template for that kind. Request.Feedback is ignored: the output is
// always valid.
//
// # Usage
//
// Usage reports zero cost. PromptTokens is the number of words of the
// prompt and directive and CompletionTokens that of the raw output, a word
// being a run of letters or digits: a cheap, deterministic stand-in for
// model tokens.
package rules
