package rules_test

import (
	"testing"

	"github.com/askonce/askonce"
)

// Rule 14: the embedded interpreter asks only about what it can ground in
// the request, and plans otherwise. Each grounded case asks with the
// user's whole phrases as options; a question of the user's own, a
// write-about task, a choice under a negation or offered as a suggestion
// plan; the question is in the language most of the goal is written in.
// (Each detector's own table test pins its details.)
func TestRule14_AsksOnlyWhatIsGrounded(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	const enumSchema = `{"type":"object","required":["env"],"properties":{"env":{"type":"string","enum":["staging","production"]}}}`
	for _, tc := range []struct {
		name  string
		req   req
		check check
	}{
		{"two values of one attribute", req{goal: "serve a hot frozen dessert"},
			asks(askonce.QuestionSelectOne, "scope_unclear", "hot", "frozen")},
		{"a destructive command on named data", req{goal: "delete notes.md"},
			asks(askonce.QuestionConfirm, "target_file_exists", "yes", "no")},
		{"a reference matching two candidates", req{goal: "use the pepper", cands: []string{"black pepper", "bell pepper", "salt"}},
			asks(askonce.QuestionSelectOne, "target_action_ambiguous", "black pepper", "bell pepper")},
		{"a reference matching one candidate exactly", req{goal: "use the black pepper", cands: []string{"black pepper", "bell pepper"}}, plans()},
		{"an open required field of specSchema", req{goal: "deploy the api", schema: enumSchema},
			asks(askonce.QuestionSelectOne, "missing_required_info", "staging", "production")},
		{"a choice the user asks the agent to make", req{goal: "deploy to staging or production"},
			asks(askonce.QuestionSelectOne, "action_ambiguous", "staging", "production")},
		{"the user's own question is not handed back", req{goal: "Ann told Beth that she had won. Who had won?"}, plans()},
		{"a write-about task on a destructive topic", req{goal: "write a blog post about why you deleted your account"}, plans()},
		{"alternatives under a negation", req{goal: "whisk the eggs, careful not to spill the milk or the flour"}, plans()},
		{"alternatives as a serving suggestion", req{goal: "bake the bread and serve with butter or jam"}, plans()},
		{"a choice left to the agent", req{goal: "push the image to dev or qa, whichever is idle"}, plans()},
		{"a destructive verb that continues a clause is no command", req{goal: "summarise how the team is migrating the service and dropping the old database"}, plans()},
		{"a talk on a topic", req{goal: "give a talk on hot and cold therapy for sore muscles"}, plans()},
		{"a command in Latin letters as a Japanese sentence's topic", req{goal: "terraform destroyが何をするか説明して"}, plans()},
		{"a command in Latin letters that a Japanese sentence runs", req{goal: "rm -rf buildを実行して"},
			asks(askonce.QuestionConfirm, "target_file_exists", "yes", "no")},
		{"one stray CJK character keeps the question English", req{goal: "delete notes.md 縲"},
			questionText("notes.md")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.check(t, interpret(t, in, tc.req))
		})
	}
}
