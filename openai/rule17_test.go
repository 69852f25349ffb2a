package openai_test

import (
	"testing"

	"github.com/askonce/askonce"
)

// Rule 17 for a model: a default it guesses (the first option) is
// dropped before anyone is asked, so that the question expires rather
// than answering for the person; its "no" for a destructive step stays.
func TestRule17_AModelsGuessedDefaultIsDroppedAndItsDestructiveNoKept(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, raw, goal, want string }{
		{"guess", askTemp, "hot frozen cheese", ""},
		{"destructive", `{"title":"Cache","question":{"type":"CONFIRM","text":"Delete the cache?","reason":"target_file_exists","default":"no"}}`, "delete the cache", "no"},
	} {
		f := newFakeServer(t, reply(c.raw, 10, 5))
		e := newEngine(t, newInterpreter(t, f, nil))
		j, err := e.Create(ctx, askonce.CreateRequest{Goal: c.goal})
		if err != nil {
			t.Fatal(err)
		}
		if j.Status != askonce.StatusPending || j.Question == nil || j.Question.Default != c.want {
			t.Errorf("%s: status %s, question %+v; want pending with default %q", c.name, j.Status, j.Question, c.want)
		}
	}
}
