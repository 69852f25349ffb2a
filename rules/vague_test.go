package rules

import "testing"

func TestVagueAsksWhenTheVerbHasNoObject(t *testing.T) {
	t.Parallel()
	runDetector(t, func(in *input) *asked { r := detectVague(in); return &r.asked }, []detectorCase{
		{goal: "fix it", options: asks(), text: "“it”"},
		{goal: "make it better", options: asks(), text: "“it”"},
		{goal: "do the thing", options: asks(), text: "“thing”"},
		{goal: "help", options: asks(), text: "does not say what to act on"},
		{goal: "  ", options: asks()},
		{goal: "それを直して", options: asks(), text: "「それ」"},
		{goal: "fix it", answer: "yes", options: asks()},
		// An object, or an answer that names one.
		{goal: "fix it", answer: "the login form crashes"},
		{goal: "fix the login form"},
		{goal: "deploy"},
		{goal: "make it faster to load the dashboard"},
		{goal: "ログイン画面を直して"},
	})
}
