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
		{"mentions that name candidates in full are resolved", req{goal: "Take the rye bread, white bread and butter out of the cupboard.", cands: []string{"rye bread", "white bread", "wheat bread", "butter"}}, plans()},
		{"the longest full name wins", req{goal: "Bring the lemon yogurt cup, plain yogurt cup and a spoon to the table.", cands: []string{"lemon yogurt cup", "plain yogurt cup", "spoon"}}, plans()},
		{"a noun inside a compound is no mention", req{goal: "Use the steak knife to cut the bread.", cands: []string{"ribeye steak", "sirloin steak", "bread"}}, plans()},
		{"the first noun of a dish is no mention", req{goal: "Put the apple pie in the oven.", cands: []string{"green apple", "red apple"}}, plans()},
		{"a noun modifying another is no mention", req{goal: "Spread the cream cheese on the toast.", cands: []string{"sour cream", "whipped cream"}}, plans()},
		{"a measure is no mention", req{goal: "Add 1 cup of rice to the pot.", cands: []string{"lemon yogurt cup", "plain yogurt cup", "rice"}}, plans()},
		{"a later short mention binds to the nearest full one", req{goal: "Take the cheddar cheese out, then slice the cheese.", cands: []string{"cheddar cheese", "brie cheese"}}, plans()},
		{"a bare mention after a list naming every candidate means all", req{goal: "Take the rye bread and the white bread out, then slice the bread.", cands: []string{"rye bread", "white bread"}}, plans()},
		{"both means all of them", req{goal: "Bring both breads.", cands: []string{"rye bread", "white bread"}}, plans()},
		{"a bare mention that nothing picks asks", req{goal: "Put the cheese in the fridge and then slice it.", cands: []string{"cheddar cheese", "brie cheese"}},
			asks(askonce.QuestionSelectOne, "target_action_ambiguous", "cheddar cheese", "brie cheese")},
		{"categories offered per item are no contradiction", req{goal: "Classify each item into solid, liquid or gas."}, plans()},
		{"labels offered per item are no contradiction", req{goal: "Label each sample as solid, liquid or gas."}, plans()},
		{"one list of alternatives is no contradiction", req{goal: "Make the water solid, liquid or gas, whichever is easiest."}, plans()},
		{"values held at once are a contradiction", req{goal: "make the water liquid, solid and gas"},
			asks(askonce.QuestionSelectOne, "scope_unclear", "liquid", "solid", "gas")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.check(t, interpret(t, in, tc.req))
		})
	}
}
