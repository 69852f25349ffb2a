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
// profiles/minecraft-mod.json (seed 000). Options.ProfileFiles replaces
// one of them, or adds a profile, from a user's file; LoadProfile reads
// the same format from any reader.
//
// A profile is one JSON object (unknown keys are an error):
//
//	{
//	  "name": "general",                    // lower case, no spaces
//	  "aliases": ["minecraft"],             // other names selecting it
//	  "description": "...",
//	  "checks": ["contradiction", "destructive", "alternatives", "targetFile", "vague"],
//	  "planner": "steps",                   // or "template"
//	  "minContentWords": 2,                 // the vague check's threshold
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
//	  "destructive": ["delete", "rm -rf", "git push --force"],
//	  "targetPhrases": ["the file", "this file"],
//	  "stopWords": [], "knownWords": [], "functionalCues": [], "negations": [],
//	  "orWords": [], "orIgnore": [], "conjunctions": [], "stepSeparators": [],
//	  "connectors": [], "parallelCues": [], "yes": [], "no": []
//	}
//
// The word lists at the end add to the embedded base lists of words.json
// (English and Japanese stop words, cues, negations, yes/no words, ...);
// they never replace them. A list entry of several words is a phrase.
// Group, property and kind words must be single words; a word may sit on
// only one side of a group. The template planner's tasks may use {name},
// {id}, {kind}, {properties} and {goal}; a task limited to other kinds is
// left out and its dependants inherit its dependencies.
//
// # Words
//
// Everything matches whole tokens, never substrings: "notes.md" is not
// "no", "scold" is not "cold". Text is lower-cased and split at white
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
// # Checks
//
// The prompt is the goal, or the resolved prompt goal + "\n\nClarification
// Answer: " + answer (PROTOCOL.md rule 4), split at the last marker. The
// checks run in the profile's order; the first one that the answer does
// not settle asks, and each one's question depends on the goal only, so a
// repeated question has the same text:
//
//   - contradiction: the goal names two or more sides of one group ("hot
//     frozen cheese"). SELECT_ONE, reason scope_unclear, options the
//     sides' words as the goal shows them, cosmetic as the group says.
//     Functional groups are asked before cosmetic ones. The answer settles
//     it when it names exactly one side of the group (any side), or
//     rejects one of two ("not hot"); the other sides' words are dropped
//     from the plan's text.
//   - destructive: delete, remove, drop, overwrite, truncate, wipe,
//     force-push, git push --force, rm -rf, ... CONFIRM, reason
//     target_file_exists (the one reason mapped to CONFIRM), default
//     "no". Answer yes keeps the actions; no drops them (and a step left
//     without content), with an assumption.
//   - alternatives: "X or Y". SELECT_ONE, reason action_ambiguous. The
//     options are the content words around "or" (stop words next to it
//     are skipped; up to three words a side, both sides as long as the
//     shorter one). "more or less", "or not" and alternatives that are a
//     contradiction already handled do not count. The answer settles it
//     when it equals an option, is its unique prefix, or holds the words
//     of exactly one option.
//   - targetFile: "the file", "this file", "that file" with two or more
//     Request.Files and no file named in the goal. TARGET_FILE, reason
//     target_file_ambiguous. One candidate is used without asking; a
//     named file is used. The answer settles it with an offered file or a
//     relative path inside the project.
//   - vague: fewer content words (not stop words) than minContentWords
//     ("do it", "fix stuff", "help"). FREE_TEXT, reason
//     missing_required_info. An answer with a content word settles it and
//     the plan is made from goal + answer.
//
// An answer that settles nothing ("banana") leaves the question asked
// again, and the engine's hard cap applies.
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
//   - vague: a generic investigate, act, report plan.
//
// Every question also carries this rule's choice as its default (no for
// CONFIRM; none for FREE_TEXT), so a timeout or decline gives the same
// result as the directive.
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
