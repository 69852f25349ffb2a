package dispatch

import (
	"testing"

	"github.com/askonce/askonce"
)

// BenchmarkRoundTripReach is a clarification round trip (create → ask →
// answer → success) on SQLite with a started dispatcher and a channel
// that reaches the job's one address: without a reach policy, and with
// three steps (scheduled in the ask's transaction, cancelled in the
// answer's). river-jobs/op counts the River rows a round trip inserts;
// compare the time of the two in one run:
//
//	go test -run '^$' -bench RoundTripReach -benchtime 2000x -count 5 ./dispatch
func BenchmarkRoundTripReach(b *testing.B) {
	for _, tc := range []struct {
		name  string
		steps []askonce.ReachStep
	}{
		{"none", nil},
		{"steps=3", []askonce.ReachStep{{After: "1h"}, {After: "2h", Email: []string{"oncall@example.com"}}, {BeforeExpiry: "1h"}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ch := newReachChannel(func(askonce.Send) error { return nil })
			st, eng := openChannelStack(b, ch)
			notify := &askonce.Recipients{Email: []string{"a@example.com"}, Steps: tc.steps}
			var before int
			if err := st.WriteDB().QueryRow(`SELECT count(*) FROM river_job`).Scan(&before); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				j, err := eng.Create(b.Context(), askonce.CreateRequest{Goal: "make cheese", Notify: notify})
				if err != nil || j.Status != askonce.StatusPending {
					b.Fatalf("create: %+v, %v", j, err)
				}
				if _, _, err := eng.Act(b.Context(), askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer(anAnswer(j))}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			var after int
			if err := st.WriteDB().QueryRow(`SELECT count(*) FROM river_job`).Scan(&after); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(after-before)/float64(b.N), "river-jobs/op")
		})
	}
}
