package postgres

import (
	"context"
	"fmt"
	"net"
	"sync/atomic"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/postgres/pgtest"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/storetest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// wire counts what a store sends PostgreSQL: statements (every query,
// exec and statement of a batch, as pgx traces them) and flights (the
// writes to the connection's socket; pgx writes a whole request, a batch
// included, in one, and then reads its answers, so a flight is a network
// round trip).
type wire struct {
	statements, flights atomic.Int64
}

func (w *wire) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	w.statements.Add(1)
	return ctx
}
func (w *wire) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (w *wire) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}
func (w *wire) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {
	w.statements.Add(1)
}
func (w *wire) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// countedConn counts the writes to a connection.
type countedConn struct {
	net.Conn
	w *wire
}

func (c countedConn) Write(b []byte) (int, error) {
	c.w.flights.Add(1)
	return c.Conn.Write(b)
}

// open opens a store on dsn whose every connection w counts.
func (w *wire) open(t testing.TB, o Options, dsn string) *Store {
	t.Helper()
	o.configure = func(cfg *pgxpool.Config) {
		cfg.ConnConfig.Tracer = w
		dial := cfg.ConnConfig.DialFunc
		cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return countedConn{c, w}, nil
		}
	}
	s, err := o.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// count returns the statements and flights fn sends.
func (w *wire) count(fn func()) (statements, flights int64) {
	s0, f0 := w.statements.Load(), w.flights.Load()
	fn()
	return w.statements.Load() - s0, w.flights.Load() - f0
}

// A change without hooks (no River queue) is one network round trip,
// however many statements it holds: the job, its static columns, its
// events, attempts and history go in one pipelined batch, which
// PostgreSQL runs as one implicit transaction.
func TestChangeIsOneNetworkRoundTrip(t *testing.T) {
	t.Parallel()
	w := &wire{}
	s := w.open(t, Options{}, pgtest.Schema(t))
	ctx := t.Context()
	tenant := storetest.NewTenant()
	job := func(id string) *askonce.Job {
		return &askonce.Job{ID: id, TenantID: tenant, Goal: "hot frozen cheese", Status: askonce.StatusPlanning,
			ClarificationStatus: askonce.ClarificationNone}
	}
	// The first use of each statement prepares it (a round trip of its
	// own, once per connection); count the second job's.
	for i, id := range []string{"00000000-0000-7000-8000-000000000001", "00000000-0000-7000-8000-000000000002"} {
		j := job(id)
		create := &askonce.Change{Job: j, Events: []askonce.Event{{Type: askonce.EventCreated}}}
		cs, cf := w.count(func() {
			if err := s.CreateJob(ctx, create); err != nil {
				t.Fatal(err)
			}
		})
		j.Status, j.ClarificationStatus = askonce.StatusPending, askonce.ClarificationAsked
		j.Question = &askonce.Question{Type: askonce.QuestionConfirm, Text: "Overwrite?", Options: []string{"yes", "no"}}
		update := &askonce.Change{Job: j,
			Attempts: []askonce.Attempt{{N: 1, Reason: askonce.ReasonInitial, Outcome: askonce.AttemptQuestion}},
			Events:   []askonce.Event{{Type: askonce.EventAttempt}, {Type: askonce.EventAsked}}}
		us, uf := w.count(func() {
			if err := s.UpdateJob(ctx, update); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("job %d: create %d statements in %d round trips; update %d statements in %d round trips", i+1, cs, cf, us, uf)
		if i == 1 && (cf != 1 || uf != 1) {
			t.Errorf("create took %d round trips, update %d; want one each", cf, uf)
		}
	}
}

// BenchmarkRoundTripWire counts, per clarification round trip of the
// engine (create that asks, answer, success), the statements it sends
// and the network round trips they take, serial, after a few warm-up
// round trips that prepare the statements on the connections.
func BenchmarkRoundTripWire(b *testing.B) {
	interp, err := rules.New(rules.Options{})
	if err != nil {
		b.Fatal(err)
	}
	w := &wire{}
	s := w.open(b, Options{}, pgtest.Schema(b))
	e := &askonce.Engine{Store: s, Interpreter: interp}
	trip := func(i int) {
		j, err := e.Create(b.Context(), askonce.CreateRequest{Goal: "hot frozen cheese", SessionID: fmt.Sprint("wire-", i)})
		if err != nil || j.Status != askonce.StatusPending {
			b.Fatalf("create: %v %v", err, j.Status)
		}
		if j, _, err = e.Act(b.Context(), askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")}); err != nil || j.Status != askonce.StatusSuccess {
			b.Fatalf("answer: %v %v", err, j.Status)
		}
	}
	for i := range 3 {
		trip(-i - 1)
	}
	s0, f0 := w.statements.Load(), w.flights.Load()
	i := 0
	for b.Loop() {
		i++
		trip(i)
	}
	b.ReportMetric(float64(w.statements.Load()-s0)/float64(b.N), "statements/op")
	b.ReportMetric(float64(w.flights.Load()-f0)/float64(b.N), "pgroundtrips/op")
}
