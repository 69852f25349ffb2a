package bench

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"slices"
	"time"
)

// benchComparison is `askonce bench --compare`: the same load run against
// two servers in interleaved rounds, each side's figures over all its
// rounds, and the ratio of their rates round by round.
type benchComparison struct {
	Server  *benchReport `json:"server"`
	Compare *benchReport `json:"compare"`
	Rounds  []benchRound `json:"rounds"`
	// Ratio summarises the rounds' ratios (server over compare, round
	// trips per second); nil when no round had a rate on both sides.
	Ratio *ratioSummary `json:"ratio"`
}

// benchRound is one round: the round trips per second of each side, and
// their ratio (nil when compare had none).
type benchRound struct {
	Server  float64  `json:"server"`
	Compare float64  `json:"compare"`
	Ratio   *float64 `json:"ratio"`
}

type ratioSummary struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// compareBench runs c.Rounds rounds, each one run against bases and one
// against others, in the order ABBA ABBA… so that a drift of the
// machine's speed during a round weighs on both sides alike. Each run
// gets an equal share of c.Requests and c.Duration, and session ids of
// its own under prefix.
func compareBench(ctx context.Context, c *Options, bases, others []*url.URL, prefix string) *benchComparison {
	share := *c
	share.Requests = c.Requests / (2 * c.Rounds)
	share.Duration = c.Duration / time.Duration(2*c.Rounds)
	a, b := newBenchResult(prefix+"-s"), newBenchResult(prefix+"-c")
	cmp := &benchComparison{}
	for k := range c.Rounds {
		var round benchRound
		runA := func() {
			n, d := a.run(ctx, &share, bases, fmt.Sprintf("%s-%d", a.sessions, k))
			round.Server = perSecond(n, d.Seconds())
		}
		runB := func() {
			n, d := b.run(ctx, &share, others, fmt.Sprintf("%s-%d", b.sessions, k))
			round.Compare = perSecond(n, d.Seconds())
		}
		if k%2 == 0 {
			runA()
			runB()
		} else {
			runB()
			runA()
		}
		if round.Compare > 0 {
			r := round.Server / round.Compare
			round.Ratio = &r
		}
		cmp.Rounds = append(cmp.Rounds, round)
	}
	cmp.Server, cmp.Compare = a.report(c, c.Server), b.report(c, c.Compare)
	var ratios []float64
	for _, r := range cmp.Rounds {
		if r.Ratio != nil && r.Server > 0 {
			ratios = append(ratios, *r.Ratio)
		}
	}
	if len(ratios) > 0 {
		slices.Sort(ratios)
		m := ratios[len(ratios)/2]
		if len(ratios)%2 == 0 {
			m = (ratios[len(ratios)/2-1] + m) / 2
		}
		cmp.Ratio = &ratioSummary{Median: m, Min: ratios[0], Max: ratios[len(ratios)-1]}
	}
	return cmp
}

func (cmp *benchComparison) print(w io.Writer) {
	fmt.Fprintf(w, "server: %s\n", cmp.Server.Server)
	cmp.Server.print(w)
	fmt.Fprintf(w, "\ncompare: %s\n", cmp.Compare.Server)
	cmp.Compare.print(w)
	fmt.Fprintf(w, "\n%-6s %14s %14s %8s\n", "round", "server rt/s", "compare rt/s", "ratio")
	for k, r := range cmp.Rounds {
		ratio := "-"
		if r.Ratio != nil {
			ratio = fmt.Sprintf("%.3f", *r.Ratio)
		}
		fmt.Fprintf(w, "%-6d %14.0f %14.0f %8s\n", k+1, r.Server, r.Compare, ratio)
	}
	if cmp.Ratio == nil {
		fmt.Fprintln(w, "ratio server/compare: none (a side completed no round trip)")
		return
	}
	fmt.Fprintf(w, "ratio server/compare (round trips/s), median of %d rounds: %.3f (min %.3f, max %.3f)\n",
		len(cmp.Rounds), cmp.Ratio.Median, cmp.Ratio.Min, cmp.Ratio.Max)
}
