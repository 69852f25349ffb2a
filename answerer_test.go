package askonce_test

import (
	"encoding/json"
	"testing"

	"github.com/askonce/askonce"
)

// Rule 15: an answer records the Answerer its context carries on the job and in
// the answered event; a decline does too.
func TestRule15_AnswerRecordsWhoAnsweredAndWhere(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		settle  func(e *askonce.Engine, id string) error
		via, by string
	}{
		{"Answer", func(e *askonce.Engine, id string) error {
			_, _, err := e.Act(askonce.WithAnswerer(ctx, askonce.Answerer{Via: askonce.ViaSlack, By: "U0123ABCD"}), askonce.Act{Do: askonce.ActAnswer, ID: id, Answer: askonce.TextAnswer("hot")})
			return err
		}, askonce.ViaSlack, "U0123ABCD"},
		{"Decline", func(e *askonce.Engine, id string) error {
			_, _, err := e.Act(askonce.WithAnswerer(ctx, askonce.Answerer{Via: askonce.ViaMCP, By: "claude-code"}), askonce.Act{Do: askonce.ActDecline, ID: id})
			return err
		}, askonce.ViaMCP, "claude-code"},
		{"NoAnswererRecordsNone", func(e *askonce.Engine, id string) error {
			_, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: id, Answer: askonce.TextAnswer("hot")})
			return err
		}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEngine(t, rulesInterpreter(t))
			j := create(t, e, "hot frozen cheese")
			if j.Status != askonce.StatusPending {
				t.Fatalf("status %s; want pending", j.Status)
			}
			if err := tc.settle(e, j.ID); err != nil {
				t.Fatal(err)
			}
			got, err := e.Get(ctx, "", j.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.AnsweredVia != tc.via || got.AnsweredBy != tc.by {
				t.Fatalf("AnsweredVia %q, AnsweredBy %q; want %q, %q", got.AnsweredVia, got.AnsweredBy, tc.via, tc.by)
			}
			evs, err := e.Events(ctx, "", j.ID, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range evs {
				if ev.Type != askonce.EventAnswered {
					continue
				}
				var d struct{ AnsweredVia, AnsweredBy string }
				if err := json.Unmarshal(ev.Data, &d); err != nil || d.AnsweredVia != tc.via || d.AnsweredBy != tc.by {
					t.Fatalf("answered event %s; want answeredVia %q, answeredBy %q", ev.Data, tc.via, tc.by)
				}
				return
			}
			t.Fatal("no answered event")
		})
	}
}
