package rules

import (
	"fmt"
	"os"
	"testing"

	"github.com/askonce/askonce"
)

func TestZZDebug(t *testing.T) {
	goal := os.Getenv("DBG")
	if goal == "" {
		t.Skip()
	}
	profiles, _ := embeddedProfiles()
	in := newInput(profiles[DefaultProfile], goal, &askonce.Request{Goal: goal, Prompt: goal})
	for i := range in.gt {
		tk := &in.gt[i]
		s := ""
		if tk.e != nil && len(tk.e.sides) > 0 {
			x, how := thingOf(in, tk.e.sides[0].group, i)
			th := ""
			if x >= 0 {
				th = in.gt[x].Text
			}
			s = fmt.Sprintf(" SIDE thing=%q how=%d gov=%q", th, how, governor(in.gt, i))
		}
		fmt.Printf("%d %q s%d c%d verb=%v cmd=%d neg=%v%s\n", i, tk.Text, tk.Sentence, tk.Clause, in.verbs[i], commandOf(in, i), tk.neg, s)
	}
}
