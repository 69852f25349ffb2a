package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/askonce/askonce"
)

// vagueness is the vague detector's result: whether the goal says too
// little to plan, and how the plan makes up for it.
type vagueness struct {
	useAnswer bool // the goal was vague and the answer says what to do
	asked
}

// detectVague finds a request with no word that names something to act
// on, only stop words, placeholders and vague verbs ("fix it", "make it
// better", "help", それを直して). It asks FREE_TEXT (reason
// missing_required_info) naming what is missing; an answer that names
// something settles it and the plan is made from goal and answer; the
// rule plans the goal as written.
func detectVague(in *input) vagueness {
	var res vagueness
	if meaningful(in.gt) {
		return res
	}
	if meaningful(in.at) {
		res.useAnswer = true
		return res
	}
	res.q = &askonce.Question{
		Type:   askonce.QuestionFreeText,
		Text:   vagueText(in),
		Reason: "missing_required_info",
	}
	res.assumptions = append(res.assumptions, fmt.Sprintf("The goal %s was too vague to plan in detail; planned it as written.",
		in.quote(askonce.ClampTitle(strings.TrimSpace(in.goal)))))
	return res
}

// meaningful reports whether a token names something to act on.
func meaningful(toks []token) bool {
	return slices.ContainsFunc(toks, func(t token) bool { return content(&t) && !t.e.has(fPlaceholder|fVague) })
}

// vagueText names what the goal leaves out: the placeholder it uses, or
// the object its verb lacks.
func vagueText(in *input) string {
	g := askonce.ClampTitle(strings.TrimSpace(in.goal))
	placeholder := ""
	for i := range in.gt {
		if t := &in.gt[i]; t.e.has(fPlaceholder) {
			placeholder = in.goal[t.Start:t.End]
			if t.word != t.Text { // それを: the placeholder without its particle
				placeholder = t.word
			}
			break
		}
	}
	switch {
	case g == "":
		return in.say("What should be done? Please describe the goal.", "何をすればよいですか？目的を具体的に教えてください。")
	case placeholder != "":
		return in.say("What does %[2]s in %[1]s refer to? Please name what to work on and what should change.",
			"%sの%sは何を指しますか？対象と、どうしたいかを教えてください。", in.quote(g), in.quote(placeholder))
	}
	return in.say("The goal %s does not say what to act on. What exactly should be done?", "%sだけでは対象が分かりません。具体的に何をしますか？", in.quote(g))
}
