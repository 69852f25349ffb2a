package a2a_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/a2a"
	"github.com/askonce/askonce/dispatch"
	"github.com/askonce/askonce/postgres"
	"github.com/askonce/askonce/postgres/pgtest"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/sqlite"
)

// BenchmarkRoundTripPush is the in-process clarification round trip
// (create → ask → answer → plan) on SQLite as `askonce serve` runs it
// without --a2a-push (off: no dispatcher) and with it, on tasks without
// a push config (on): the cost of push to those who do not use it; the
// same on PostgreSQL (postgres-off, postgres-on) with
// ASKONCE_TEST_POSTGRES.
// river-jobs/op counts the River rows a round trip inserts. Compare the
// two in one run:
//
//	go test -c -o /tmp/a2a.test ./a2a
//	for i in 1 2 3 4 5 6 7; do for v in off on; do
//	  /usr/bin/time -f "$v %U %S" /tmp/a2a.test -test.run '^$' \
//	    -test.bench "^BenchmarkRoundTripPush/$v\$" -test.benchtime 2000x >/dev/null
//	done; done
//
// and take the median of the pairs' ratios of user + system seconds.
func BenchmarkRoundTripPush(b *testing.B) {
	for _, tc := range []struct {
		name           string
		push, postgres bool
	}{{"off", false, false}, {"on", true, false}, {"postgres-off", false, true}, {"postgres-on", true, true}} {
		b.Run(tc.name, func(b *testing.B) {
			if tc.postgres && os.Getenv("ASKONCE_TEST_POSTGRES") == "" {
				b.Skip("ASKONCE_TEST_POSTGRES is not set")
			}
			ctx := context.Background()
			var hook dispatch.Hook
			var st askonce.Store
			var cfg dispatch.Config
			var riverJobs func() (int, error)
			if tc.postgres {
				var opts postgres.Options
				if tc.push {
					opts.OnNotify = hook.NotifyPgx
				}
				pg, err := opts.Open(ctx, pgtest.Schema(b))
				if err != nil {
					b.Fatal(err)
				}
				defer pg.Close()
				st, cfg.Pool = pg, pg.Pool()
				riverJobs = func() (n int, err error) {
					return n, pg.Pool().QueryRow(ctx, `SELECT count(*) FROM river_job`).Scan(&n)
				}
			} else {
				var opts sqlite.Options
				if tc.push {
					opts.OnNotify = hook.Notify
				}
				lite, err := opts.Open(ctx, filepath.Join(b.TempDir(), "push.db"))
				if err != nil {
					b.Fatal(err)
				}
				defer lite.Close()
				st, cfg.DB = lite, lite.WriteDB()
				riverJobs = func() (n int, err error) {
					return n, lite.WriteDB().QueryRow(`SELECT count(*) FROM river_job`).Scan(&n)
				}
			}
			rl, err := rules.New(rules.Options{})
			if err != nil {
				b.Fatal(err)
			}
			eng := &askonce.Engine{Store: st, Interpreter: interpreter{rl, nil}}
			defer eng.Drain(ctx)
			if tc.push {
				cfg.Store, cfg.Logger = st, slog.New(slog.DiscardHandler)
				cfg.Channels = []askonce.Channel{a2a.NewPusher(a2a.PusherConfig{Engine: eng})}
				d, err := dispatch.New(ctx, cfg)
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
				if j, _, err = eng.Act(ctx, askonce.Act{Do: askonce.ActAnswer, Job: j, Answer: askonce.TextAnswer("hot")}); err != nil || j.Status != askonce.StatusSuccess {
					b.Fatalf("answer: %+v, %v", j, err)
				}
			}
			b.StopTimer()
			var jobs int
			if tc.push {
				if jobs, err = riverJobs(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(jobs)/float64(b.N), "river-jobs/op")
		})
	}
}
