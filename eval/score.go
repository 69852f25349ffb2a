package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/cli"
)

// evalScore counts one group of measured items.
type evalScore struct {
	Items  int `json:"items"`
	Errors int `json:"errors"`
	// Clear and Ask count the items of each label that were measured
	// without an error; AsksOnClear and AsksOnAsk, those of them that
	// asked; Right, the questions on ask items that were the expected
	// one.
	Clear       int           `json:"clear"`
	AsksOnClear int           `json:"asksOnClear"`
	Ask         int           `json:"ask"`
	AsksOnAsk   int           `json:"asksOnAsk"`
	Right       int           `json:"rightQuestions"`
	Usage       askonce.Usage `json:"usage"`
}

func (s *evalScore) add(r *evalResult) {
	s.Items++
	s.Usage = s.Usage.Add(r.Usage)
	switch {
	case r.Error != "":
		s.Errors++
	case r.Item.Label == labelClear:
		s.Clear++
		if r.Asked {
			s.AsksOnClear++
		}
	default:
		s.Ask++
		if r.Asked {
			s.AsksOnAsk++
		}
		if r.Right {
			s.Right++
		}
	}
}

func ratio(n, d int) (float64, bool) {
	if d == 0 {
		return 0, false
	}
	return float64(n) / float64(d), true
}

func (s evalScore) asked() int                         { return s.AsksOnAsk + s.AsksOnClear }
func (s evalScore) asksOnClearRate() (float64, bool)   { return ratio(s.AsksOnClear, s.Clear) }
func (s evalScore) precision() (float64, bool)         { return ratio(s.AsksOnAsk, s.asked()) }
func (s evalScore) recall() (float64, bool)            { return ratio(s.AsksOnAsk, s.Ask) }
func (s evalScore) rightQuestionRate() (float64, bool) { return ratio(s.Right, s.asked()) }

func (s evalScore) f1() (float64, bool) {
	p, ok1 := s.precision()
	r, ok2 := s.recall()
	if !ok1 || !ok2 || p+r == 0 {
		return 0, ok1 && ok2
	}
	return 2 * p * r / (p + r), true
}

// evalRates are a score's fractions for --json; null where the
// denominator is zero.
type evalRates struct {
	AsksOnClear   *float64 `json:"asksOnClearRate"`
	Precision     *float64 `json:"precision"`
	Recall        *float64 `json:"recall"`
	F1            *float64 `json:"f1"`
	RightQuestion *float64 `json:"rightQuestionRate"`
}

func (s evalScore) rates() evalRates {
	p := func(v float64, ok bool) *float64 {
		if !ok {
			return nil
		}
		v = math.Round(v*1e4) / 1e4
		return &v
	}
	return evalRates{
		AsksOnClear: p(s.asksOnClearRate()), Precision: p(s.precision()), Recall: p(s.recall()),
		F1: p(s.f1()), RightQuestion: p(s.rightQuestionRate()),
	}
}

// evalSummary is a run's scores: all items, per question reason and per
// language.
type evalSummary struct {
	All        evalScore
	ByReason   map[string]*evalScore
	ByLanguage map[string]*evalScore
}

// reasonKey is the group of an item by question reason: a question counts
// under the reason it was asked with, a missed ask item under the reason
// it expected; a clear item left clear under none.
func reasonKey(r *evalResult) (string, bool) {
	switch {
	case r.Error != "":
		return "", false
	case r.Asked:
		return cmp(r.Question.Reason, "(no reason)"), true
	case r.Item.Label == labelAsk:
		if r.Item.Expect != nil && r.Item.Expect.Reason != "" {
			return r.Item.Expect.Reason, true
		}
		return "(no expected reason)", true
	}
	return "", false
}

func scoreEval(results []*evalResult) evalSummary {
	s := evalSummary{ByReason: map[string]*evalScore{}, ByLanguage: map[string]*evalScore{}}
	group := func(m map[string]*evalScore, k string) *evalScore {
		if m[k] == nil {
			m[k] = &evalScore{}
		}
		return m[k]
	}
	for _, r := range results {
		if !r.Measured {
			continue
		}
		s.All.add(r)
		group(s.ByLanguage, r.Language).add(r)
		if k, ok := reasonKey(r); ok {
			group(s.ByReason, k).add(r)
		}
	}
	return s
}

// evalJSON is the --json document.
type evalJSON struct {
	Interpreter string                   `json:"interpreter"`
	Files       []string                 `json:"files"`
	Interrupted bool                     `json:"interrupted"`
	Summary     evalSummary              `json:"-"`
	All         evalScoreJSON            `json:"summary"`
	ByReason    map[string]evalScoreJSON `json:"byReason"`
	ByLanguage  map[string]evalScoreJSON `json:"byLanguage"`
	Items       []*evalResult            `json:"items"`
}

// evalScoreJSON is a score with its rates.
type evalScoreJSON struct {
	evalScore
	evalRates
}

func (e evalJSON) MarshalJSON() ([]byte, error) {
	type plain evalJSON
	p := plain(e)
	p.All = evalScoreJSON{e.Summary.All, e.Summary.All.rates()}
	p.ByReason, p.ByLanguage = map[string]evalScoreJSON{}, map[string]evalScoreJSON{}
	for k, v := range e.Summary.ByReason {
		p.ByReason[k] = evalScoreJSON{*v, v.rates()}
	}
	for k, v := range e.Summary.ByLanguage {
		p.ByLanguage[k] = evalScoreJSON{*v, v.rates()}
	}
	if p.Items == nil {
		p.Items = []*evalResult{}
	}
	return json.Marshal(p)
}

func percent(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }

// rate is a fraction for people: "12.5%", or "n/a" without a denominator.
func rate(v float64, ok bool) string {
	if !ok {
		return "n/a"
	}
	return percent(v)
}

func printEvalSummary(w io.Writer, interp string, paths []string, s evalSummary, total int) {
	a := s.All
	fmt.Fprintf(w, "askonce eval: %s interpreter, %s: %d of %d items measured\n", interp, strings.Join(paths, ", "), a.Items, total)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  asks on clear items\t%d of %d\t%s\n", a.AsksOnClear, a.Clear, rate(a.asksOnClearRate()))
	fmt.Fprintf(tw, "  precision\t%d of %d questions on ask items\t%s\n", a.AsksOnAsk, a.asked(), rate(a.precision()))
	fmt.Fprintf(tw, "  recall\t%d of %d ask items asked\t%s\n", a.AsksOnAsk, a.Ask, rate(a.recall()))
	fmt.Fprintf(tw, "  F1\t\t%s\n", rate(a.f1()))
	fmt.Fprintf(tw, "  right question\t%d of %d questions\t%s\n", a.Right, a.asked(), rate(a.rightQuestionRate()))
	fmt.Fprintf(tw, "  interpreter errors\t%d\t\n", a.Errors)
	fmt.Fprintf(tw, "  usage\t%d prompt + %d completion tokens\t$%.4f\n", a.Usage.PromptTokens, a.Usage.CompletionTokens, a.Usage.CostUSD)
	tw.Flush()
	printEvalTable(w, "question reason", s.ByReason)
	printEvalTable(w, "language", s.ByLanguage)
}

func printEvalTable(w io.Writer, by string, m map[string]*evalScore) {
	if len(m) == 0 {
		return
	}
	fmt.Fprintf(w, "by %s:\n", by)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  \titems\tasks on clear\tprecision\trecall\tF1\tright question\terrors")
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		fmt.Fprintf(tw, "  %s\t%d\t%d of %d\t%s\t%s\t%s\t%s\t%d\n", cli.CleanText(k), v.Items, v.AsksOnClear, v.Clear,
			rate(v.precision()), rate(v.recall()), rate(v.f1()), rate(v.rightQuestionRate()), v.Errors)
	}
	tw.Flush()
}

// evalProgress shows how far a run is on stderr: a redrawn bar on a
// terminal, otherwise a line at every tenth of the items and at least
// every five seconds.
type evalProgress struct {
	w        io.Writer
	tty      bool
	total    int
	start    time.Time
	last     time.Time
	lastTick int
	drew     bool
}

func newEvalProgress(w io.Writer, total int) *evalProgress {
	p := &evalProgress{w: cli.Raw(w), total: total, start: time.Now()}
	if f, ok := p.w.(*os.File); ok && cli.IsTerminal(f) {
		p.tty = true
	}
	p.last = p.start
	return p
}

func (p *evalProgress) update(done, asked, errs int) {
	now := time.Now()
	if p.tty {
		const width = 30
		n := width * done / max(p.total, 1)
		fmt.Fprintf(p.w, "\r\x1b[K[%s%s] %d/%d  asked %d  errors %d  %s", strings.Repeat("=", n), strings.Repeat(" ", width-n),
			done, p.total, asked, errs, now.Sub(p.start).Round(time.Second))
		p.drew = true
		return
	}
	tick := 10 * done / max(p.total, 1)
	if tick == p.lastTick && now.Sub(p.last) < 5*time.Second && done != p.total {
		return
	}
	p.lastTick, p.last = tick, now
	fmt.Fprintf(p.w, "askonce eval: %d/%d items, %d asked, %d errors, %s\n", done, p.total, asked, errs, now.Sub(p.start).Round(time.Millisecond))
}

func (p *evalProgress) finish() {
	if p.drew {
		fmt.Fprintln(p.w)
	}
}
