package rules

import "testing"

func TestCoreferenceAsksWhenAPronounHasTwoCandidates(t *testing.T) {
	t.Parallel()
	runDetector(t, func(in *input) finding { r := detectCoreference(in); return &r }, []detectorCase{
		{goal: "Maria emailed Priya after she fixed the build; ask her to deploy it", options: asks("Maria", "Priya"), text: "Who does “she” refer to"},
		{goal: "Tom told Sam that he should review the patch", options: asks("Tom", "Sam")},
		{goal: "Priya reviewed Maria's change; ping her about it", options: asks("Priya", "Maria")},
		{goal: "Kenji and Hiro worked on the fix; ask him to write the notes", options: asks("Kenji", "Hiro")},
		{goal: "compare config.yaml with config.prod.yaml and fix it", options: asks("config.yaml", "config.prod.yaml")},
		{goal: "田中さんが鈴木さんにメールした後、彼にデプロイを頼んで", options: asks("田中", "鈴木")},
		{goal: "Maria emailed Priya after she fixed the build", answer: "banana", options: asks("Maria", "Priya")},
		// Settled, one candidate, or not a request to act.
		{goal: "Maria emailed Priya after she fixed the build", answer: "Priya"},
		{goal: "ask Priya to review the pull request when she is back"},
		{goal: "tell Tom that his branch is ready"},
		{goal: "open config.yaml and add the flag to it"},
		{goal: "Did Maria tell Priya that she was late?"},
		{goal: "post it on Slack and ask her to review"},
		{goal: "鈴木さんにリリースノートを送って、彼にフィードバックを頼んで"},
	})
}
