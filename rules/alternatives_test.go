package rules

import "testing"

func TestAlternativesAsksOnlyForTheUsersChoiceInARequestToAct(t *testing.T) {
	t.Parallel()
	runDetector(t, func(in *input) finding { r := detectAlternatives(in); return &r }, []detectorCase{
		{goal: "write the parser in Go or Rust", options: asks("Go", "Rust"), text: "“Go” or “Rust”"},
		{goal: "add a red or a blue border", options: asks("red", "blue")},
		{goal: "use postgres or mysql for storage", options: asks("postgres", "mysql")},
		{goal: "deploy to aws or gcp or azure", options: asks("aws", "gcp", "azure")},
		{goal: "send the report by email or Slack", options: asks("email", "Slack")},
		{goal: "restart the server or redeploy", options: asks("restart the server", "redeploy")},
		{goal: "make the button bigger or change its color", options: asks("make the button bigger", "change its color")},
		{goal: "write it in TypeScript or plain JavaScript", options: asks("TypeScript", "plain JavaScript")},
		{goal: "serve hot or cold tea", options: asks("hot", "cold")},
		{goal: "Can you write the CLI in Python or Go?", options: asks("Python", "Go")},
		{goal: "設定をYAMLまたはJSONで書いて", options: asks()},
		{goal: "write the parser in Go or Rust", answer: "banana", options: asks("Go", "Rust")},
		// Settled by the answer.
		{goal: "write the parser in Go or Rust", answer: "rust"},
		// Questions for the agent, labels, durations and fixed phrases.
		{goal: "Is the octopus a vertebrate or an invertebrate?"},
		{goal: "How can a loose cable slow down or stop a deploy?"},
		{goal: "Should we use Postgres or MySQL?"},
		{goal: "check whether the build passes or fails"},
		{goal: "Sort these into fruit or vegetable: carrot, pear"},
		{goal: "classify each ticket as bug or feature"},
		{goal: "simmer 15 minutes or until the sauce thickens"},
		{goal: "retry 2 or 3 times"},
		{goal: "tell me if it is reversible or not"},
		{goal: "center the logo more or less"},
		{goal: "log the error and/or alert"},
		{goal: "write the order form for the editor"},
		{goal: "各チケットをバグまたは機能要望に分類して"},
	})
}
