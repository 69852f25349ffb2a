package main_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// Rule 17 end to end, with the built binary's sweep and a webhook builder,
// on each store: a question nobody answers ends its job expired with
// nothing delivered, unless it has a default someone chose (the rules
// interpreter's "no" to a destructive step), and then the job, its events
// and the builder's payload say plainly that the default answered.
func TestRule17_NobodyAnsweringExpiresTheJobUnlessItsDefaultWasChosenAndSaysSo(t *testing.T) {
	for _, d := range sharedDBs {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			rc := newReceiver(t, 0)
			env, args := rc.args()
			in := start(t, env, append(args, "--db", d.db(t), "--question-ttl", "2s", "--expiry-interval", "200ms")...)

			bowl := in.do("POST", "/jobs", map[string]any{"goal": "put the soup in the bowl and microwave it", "candidates": []string{"metal bowl", "glass bowl"}})
			del := in.do("POST", "/jobs", map[string]any{"goal": "delete notes.md and update the readme"})
			if bowl.status != 201 || str(bowl.body, "status") != "pending" || bowl.body["clarificationDefault"] != nil {
				t.Fatalf("bowl: %d %s; want pending without a default", bowl.status, bowl.raw)
			}
			if del.status != 201 || str(del.body, "status") != "pending" || str(del.body, "clarificationDefault") != "no" {
				t.Fatalf("delete: %d %s; want pending with the default no", del.status, del.raw)
			}
			bowlID, delID := str(bowl.body, "jobId"), str(del.body, "jobId")
			eventually(t, "the delete job's delivery on its default", func() bool { return rc.ackedCount(delID) == 1 })
			eventually(t, "the bowl job to expire", func() bool { return str(in.do("GET", "/jobs/"+bowlID, nil).body, "status") == "expired" })

			g := in.do("GET", "/jobs/"+bowlID, nil)
			note := str(g.body, "expiryNote")
			if !strings.HasPrefix(note, "Nobody answered within ") || !strings.HasSuffix(note, ", and the question had no default; the job expired.") ||
				g.body["dispatchStatus"] != nil || g.body["plan"] != nil || str(g.body, "clarificationStatus") != "asked" {
				t.Errorf("bowl: %s; want expired, still asked, no plan, nothing dispatched, saying so", g.raw)
			}
			if rc.ackedCount(bowlID) != 0 {
				t.Errorf("the builder got the expired bowl job")
			}

			g = in.do("GET", "/jobs/"+delID, nil)
			note = str(g.body, "expiryNote")
			if str(g.body, "clarificationSource") != "timeout" || str(g.body, "clarificationAnswer") != "no" ||
				!strings.HasPrefix(note, "Nobody answered within ") || !strings.HasSuffix(note, "; the default “no” was used.") {
				t.Errorf("delete: %s; want answered by the timeout's default no, saying so", g.raw)
			}
			var sent struct {
				Data struct {
					ExpiryNote string `json:"expiryNote"`
				} `json:"data"`
			}
			if err := json.Unmarshal(rc.body(delID), &sent); err != nil || sent.Data.ExpiryNote != note {
				t.Errorf("the builder's payload says %q (%v); want %q", sent.Data.ExpiryNote, err, note)
			}
			evs := in.do("GET", "/jobs/"+delID+"/events", nil)
			if !strings.Contains(string(evs.raw), `"source":"timeout"`) || !strings.Contains(string(evs.raw), note) {
				t.Errorf("delete's events %s do not say the default answered: %q", evs.raw, note)
			}
		})
	}
}
