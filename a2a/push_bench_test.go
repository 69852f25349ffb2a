package a2a_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/a2a"
	"github.com/askonce/askonce/dispatch"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/sqlite"
)

// BenchmarkRoundTripPush is the in-process clarification round trip
// (create → ask → answer → plan) on SQLite as `askonce serve` runs it
// without --a2a-push (off: no dispatcher) and with it, on tasks without
// a push config (on): the cost of push to those who do not use it.
// river-jobs/op counts the River rows a round trip inserts. Compare the
// two in one run:
//
//	go test -c -o /tmp/a2a.test ./a2a
//	farm-bench -n 7 --vs '/tmp/a2a.test -test.run ^$ -test.bench ^BenchmarkRoundTripPush/off$ -test.benchtime 2000x' -- /tmp/a2a.test -test.run '^$' -test.bench '^BenchmarkRoundTripPush/on$' -test.benchtime 2000x
func BenchmarkRoundTripPush(b *testing.B) {
	for _, push := range []bool{false, true} {
		name := "off"
		if push {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			var hook dispatch.Hook
			var opts sqlite.Options
			if push {
				opts.OnNotify = hook.Notify
			}
			st, err := opts.Open(ctx, filepath.Join(b.TempDir(), "push.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			rl, err := rules.New(rules.Options{})
			if err != nil {
				b.Fatal(err)
			}
			eng := &askonce.Engine{Store: st, Interpreter: interpreter{rl, nil}}
			defer eng.Drain(ctx)
			if push {
				d, err := dispatch.New(ctx, dispatch.Config{
					DB: st.WriteDB(), Store: st, Logger: slog.New(slog.DiscardHandler),
					Channels: []askonce.Channel{a2a.NewPusher(a2a.PusherConfig{Engine: eng})},
				})
				if err != nil {
					b.Fatal(err)
				}
				hook.Set(d)
				if err := d.Start(ctx); err != nil {
					b.Fatal(err)
				}
				defer func() {
					sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
					defer cancel()
					d.Stop(sctx)
				}()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				j, err := eng.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese"})
				if err != nil || j.Status != askonce.StatusPending {
					b.Fatalf("create: %+v, %v", j, err)
				}
				if j, err = eng.Answer(ctx, "", j.ID, "hot"); err != nil || j.Status != askonce.StatusSuccess {
					b.Fatalf("answer: %+v, %v", j, err)
				}
			}
			b.StopTimer()
			var jobs int
			if push {
				if err := st.WriteDB().QueryRow(`SELECT count(*) FROM river_job`).Scan(&jobs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(jobs)/float64(b.N), "river-jobs/op")
		})
	}
}
