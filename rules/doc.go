// Package rules is askonce's embedded default interpreter: deterministic,
// offline and cheap (no model, no network; a round trip is a few
// microseconds). It reads a goal with word rules from a profile, and
// returns either a plan or exactly one typed question, as the JSON that
// askonce.ParseOutcome reads.
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
//	  "checks": ["contradiction", "destructive", "alternatives", "targetFile", "coreference", "vague"],
//	  "planner": "steps",                   // or "template"
//	  "minContentWords": 1,                 // the vague check's threshold
//	  "gating": {"label": "Block-only mod", "words": ["block", "ore"]},
//	  "typoTolerance": true,                // concept words match at edit distance 1
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
//	  "destructive": ["delete"], "destructiveCommands": ["rm -rf"], "objects": ["table"],
//	  "targetPhrases": ["the file", "this file"],
//	  "stopWords": [], "knownWords": [], "functionalCues": [], "negations": [],
//	  "orWords": [], "orIgnore": [], "conjunctions": [], "stepSeparators": [],
//	  "connectors": [], "parallelCues": [], "placeholders": [], "vagueWords": [],
//	  "verbs": [], "questionWords": [], "requestOpeners": [], "classifyVerbs": [],
//	  "sortVerbs": [], "prepositions": [], "units": [], "conditions": [],
//	  "changeVerbs": [], "idioms": [], "personPronouns": [], "thingPronouns": [],
//	  "honorifics": []
//	}
//
// The word lists at the end add to the embedded base lists of words.json
// (English and Japanese stop words, cues, negations, data objects, ...);
// they never replace them. The yes/no vocabulary is not a profile's: it is
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
// count. With typoTolerance, a token of five or more letters that the
// profile does not know matches the one concept word (group, kind or
// property word) with the same first letter at Damerau-Levenshtein
// distance 1 ("frozn" is frozen); known words and stop words are never
// corrected ("could" never becomes cold).
//
// # Detectors
//
// The prompt is the goal, or the resolved prompt goal + "\n\nClarification
// Answer: " + answer (docs/protocol.md rule 4), split at the last marker. A
// pipeline of detectors reads it, each in its own file and each returning
// its own findings (read in pipeline.go); one place then chooses the
// question: the first open finding in the profile's "checks" order. Each
// question depends on the goal only, so a repeated question has the same
// text. The detectors are precise rather than eager: each asks only what a
// person would ask (docs/interpreters.md lists what each ignores):
//
//   - contradiction: two sides of one group meant to hold for one object at
//     once ("hot frozen cheese"); not a process that changes a state ("thaw
//     the frozen peas"), sides of different objects, alternatives, titles,
//     names or idioms. SELECT_ONE, reason scope_unclear, allowOther,
//     options the sides as the goal shows them, cosmetic as the group
//     says; functional groups first. The answer settles it when it names
//     one side (any side), or rejects one of two ("not hot"); the other
//     sides' words are dropped from the plan's text.
//   - destructive: a destructive command ("rm -rf", "git push --force"), or
//     a destructive verb whose object is data (files, paths, branches,
//     tables, records, users, deployments, ...). CONFIRM, reason
//     target_file_exists, default "no". A reply of yes keeps the actions;
//     no drops them with an assumption.
//   - alternatives: "X or Y" where the choice is the user's in a request to
//     act; not a question to the agent, a classification, a duration or
//     condition, "or not", "and/or". SELECT_ONE, reason action_ambiguous,
//     allowOther, the options as whole phrases. The answer settles it when
//     it equals an option, is its unique prefix, or holds the words of
//     exactly one option.
//   - targetFile: "the file", "this file", このファイル with two or more
//     Request.Files and no file named in the goal. TARGET_FILE, reason
//     target_file_ambiguous. One candidate is used without asking; a named
//     file is used. The answer settles it with an offered file, a relative
//     path inside the project, or a root word (".").
//   - coreference: a pronoun (he, she, him, her, it, 彼, 彼女) with two or
//     more earlier candidates (people's names, file paths) in a request to
//     act. SELECT_ONE, reason target_action_ambiguous, allowOther, options
//     the candidates; the plan names the chosen one.
//   - vague: fewer words naming something to act on than minContentWords
//     ("fix it", "make it better", "do the thing", "help"). FREE_TEXT,
//     reason missing_required_info, naming what is missing. An answer with
//     such a word settles it and the plan is made from goal + answer.
//
// An answer that settles nothing ("banana", an other answer to an
// allowOther question) leaves the question asked again, and the engine's
// hard cap applies. Question texts use typographic quotes (“ ”, or 「」
// for a Japanese goal) and the words of the goal as written.
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
//   - alternatives: the first option;
//   - target file: the first candidate;
//   - co-reference: the first-mentioned candidate;
//   - vague: a generic investigate, act, report plan.
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
// Request.Feedback is ignored: the output is always valid. Request
// SpecSchema is not consulted.
//
// # Usage
//
// Usage reports zero cost. PromptTokens is the number of words of the
// prompt and directive and CompletionTokens that of the raw output, a word
// being a run of letters or digits: a cheap, deterministic stand-in for
// model tokens.
package rules
