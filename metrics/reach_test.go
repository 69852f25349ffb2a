package metrics_test

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/metrics"
	"github.com/askonce/askonce/sqlite"
)

// clock is a time tests move.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// The wait from ask to a person's answer is observed by channel, and a
// question that expires unanswered is counted, on a real engine whose
// clock the test moves.
func TestObserver_TimesAnswersByChannelAndCountsExpiredQuestions(t *testing.T) {
	t.Parallel()
	c := &clock{t: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	// The store keeps the same time as the engine.
	st, err := sqlite.Options{Now: c.now}.Open(t.Context(), filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := metrics.NewRegistry()
	e := &askonce.Engine{Store: st, Observer: metrics.NewObserver(r), Now: c.now, QuestionTTL: time.Hour}
	ask := func() *askonce.Job {
		j, err := e.Create(t.Context(), askonce.CreateRequest{Goal: "g", Mode: askonce.ModeGate})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Report(t.Context(), "", j.ID, askonce.Report{Question: &askonce.Question{Type: askonce.QuestionFreeText, Text: "Which?"}}); err != nil {
			t.Fatal(err)
		}
		return j
	}
	answered := ask()
	unanswered := ask()
	c.add(90 * time.Second)
	ctx := askonce.WithAnswerer(t.Context(), askonce.Answerer{Via: askonce.ViaSlack, By: "U0ALICE01"})
	if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: answered.ID, Answer: askonce.TextAnswer("this one")}); err != nil {
		t.Fatal(err)
	}
	c.add(2 * time.Hour)
	if _, err := e.ExpireDue(t.Context()); err != nil {
		t.Fatal(err)
	}
	if j, _ := e.Get(t.Context(), "", unanswered.ID); j.Status == askonce.StatusPending {
		t.Fatal("the unanswered question did not expire")
	}
	metrics.NewObserver(r).ObserveReach("reminder")
	fams := gather(t, r)
	if v, ok := value(fams, metrics.NameExpiredUnanswered); !ok || v != 1 {
		t.Errorf("%s = %v, %v; want 1", metrics.NameExpiredUnanswered, v, ok)
	}
	if v, ok := value(fams, metrics.NameReach, "kind", "reminder"); !ok || v != 1 {
		t.Errorf("%s{kind=reminder} = %v, %v; want 1", metrics.NameReach, v, ok)
	}
	h := fams[metrics.NameAnswerSeconds]
	if h == nil || len(h.Metric) != 1 || h.Metric[0].Label[0].GetValue() != askonce.ViaSlack ||
		h.Metric[0].Histogram.GetSampleCount() != 1 || h.Metric[0].Histogram.GetSampleSum() != 90 {
		t.Errorf("%s = %v; want one slack answer after 90s", metrics.NameAnswerSeconds, h)
	}
}
