// Package rules is askonce's embedded default interpreter: deterministic,
// offline and cheap (no model, no network; a round trip is a few
// microseconds). It reads a goal with rules from a profile and returns
// either a plan or exactly one typed question, as the JSON that
// askonce.ParseOutcome reads.
//
// It asks only about what is grounded: two values of one attribute in the
// command itself (contradiction.go), a command that destroys named data
// (destructive.go), a reference that fits two or more of the request's
// candidates or files (candidates.go), a required field of the spec
// schema that the goal leaves open or fills twice (schema.go), and a
// choice the user asks the agent to make between named alternatives
// (choice.go). Open-ended ambiguity (pronouns, "fix it") is left to a
// model; vague.go is an opt-in check of the minecraft-mod profile. Each
// detector's doc comment states its rules, and docs/interpreters.md shows
// its questions and what it deliberately ignores.
//
// Profiles (profile.go): Request.Profile selects one by name or alias,
// empty selects DefaultProfile; an unknown name is EINVALID. A profile
// lists its checks in the order they are asked, its planner (steps or
// template), the groups of exclusive sides the contradiction check reads,
// its gating, and its own domain words, which add to the vocabulary.
//
// The vocabulary is in one place: closed.json holds the closed classes
// (determiners, negations, question words, prepositions, pronouns,
// quantifiers, abbreviations) and open.json the open lists (destructive
// verbs and the data they destroy, change verbs, idioms, measures,
// category verbs); both are embedded and read once, and no detector holds
// a word list of its own.
//
// Words match whole tokens of askonce's one tokenizer (internal/lex),
// never substrings: "notes.md" is not "no". Code-like text (paths, globs,
// flags, KEY=value, URLs, versions, back-ticked spans) is opaque: its
// tokens take no role, so no detector reads inside it (text.go). A
// Japanese word also matches by its kanji stem, and a word right after a
// negation does not count.
// A command is a clause whose first word after connectors and request
// openers is its main verb (tokens.go); a sentence that asks the agent
// something holds none, so a user's own question is never handed back.
//
// The prompt is the goal, or the resolved prompt with its answers
// (docs/protocol.md rule 4). The question asked is the first open finding
// in the profile's order (pipeline.go), in the language most of the goal
// is written in, with the user's whole phrases as options. With
// Request.Directive set nothing is asked: each open finding is settled by
// its detector's rule and written to plan.assumptions. A question carries
// no default (a default answers for the person when nobody does,
// docs/protocol.md rule 17), but for a destructive step's confirmation,
// whose safe answer is "no"; a question nobody answers expires its job.
//
// The steps planner (planner.go) quotes the user (docs/protocol.md rule
// 16): one task per step, its text a span of the goal exactly as written.
// The text is read as blocks (text.go): prose, cut only at a sentence end
// outside code and abbreviations, a line break, a semicolon or before
// "then"/"afterwards"; a list item, one step; and code (fenced, indented,
// without a prose word, or shown under a line ending in a colon: key:
// value lines, upper-case instructions), one opaque part of the step that
// introduces it, never steps. The line that introduces a list is a step of its own.
// Each step depends on the one before unless it has a parallel cue. A
// task's title is made, not quoted: its first line without the joining
// word, capitalised, without the side a settled contradiction dropped.
// Which candidate or file a mention means goes beside the text, never
// into it, by one rule (candidates.go): a mention binds the candidate
// that alone fits it, a pronoun the one thing the command before it acts
// on; to the bindings of the task that holds the mention and to
// spec.bindings; and spec.goal is the goal as sent. The template planner
// fills the profile's task DAG for the kind of thing the goal names.
// Usage is zero: no model is called, so there are no tokens and no cost.
package rules
