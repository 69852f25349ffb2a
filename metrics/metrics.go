// Package metrics is askonce's measurements: a small registry of counters,
// gauges and histograms with labels, written in the Prometheus text
// exposition format (version 0.0.4), and an [Observer] that turns the
// engine's transitions, interpreter attempts, builder deliveries and HTTP
// requests into the askonce_* metrics.
//
// It has no dependencies beyond the standard library and the askonce root
// package. A Registry is safe for concurrent use; recording a value takes
// one short mutex per metric family.
package metrics

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// ContentType is the media type of the text exposition format.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// DefBuckets are histogram buckets, in seconds, for request latencies.
var DefBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Registry holds metric families by name. The zero value is not usable;
// call NewRegistry.
type Registry struct {
	mu       sync.Mutex
	families map[string]*family

	obsOnce sync.Once
	obs     *Observer
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{families: map[string]*family{}}
}

type kind int

const (
	kindCounter kind = iota
	kindGauge
	kindHistogram
)

func (k kind) String() string {
	return [...]string{"counter", "gauge", "histogram"}[k]
}

// family is one metric name with its series, keyed by label values.
type family struct {
	name    string
	help    string
	kind    kind
	labels  []string
	buckets []float64 // histograms: upper bounds, increasing, without +Inf

	mu     sync.Mutex
	series map[string]*series
}

type series struct {
	values []string
	value  float64  // counter, gauge
	counts []uint64 // histogram: observations per bucket, +Inf last
	count  uint64
	sum    float64
}

var (
	metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelName  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

// register returns the family of that name, creating it. Registering a name
// again with the same kind and labels returns the existing family, so that
// two users of one registry share their metrics; anything else is a
// programming error and panics.
func (r *Registry) register(name, help string, k kind, buckets []float64, labels []string) *family {
	if !metricName.MatchString(name) {
		panic(fmt.Sprintf("metrics: invalid metric name %q", name))
	}
	for _, l := range labels {
		if !labelName.MatchString(l) || strings.HasPrefix(l, "__") || (k == kindHistogram && l == "le") {
			panic(fmt.Sprintf("metrics: invalid label name %q for %s", l, name))
		}
	}
	if k == kindHistogram {
		if len(buckets) == 0 || !slices.IsSorted(buckets) || slices.Contains(buckets, math.Inf(1)) {
			panic(fmt.Sprintf("metrics: histogram %s needs increasing finite buckets", name))
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.families[name]; ok {
		if f.kind != k || !slices.Equal(f.labels, labels) || !slices.Equal(f.buckets, buckets) {
			panic(fmt.Sprintf("metrics: %s registered again as another %s", name, k))
		}
		return f
	}
	f := &family{name: name, help: help, kind: k, labels: slices.Clone(labels), buckets: slices.Clone(buckets), series: map[string]*series{}}
	r.families[name] = f
	return f
}

// Counter registers (or returns) a counter with the given label names.
func (r *Registry) Counter(name, help string, labels ...string) *Counter {
	return &Counter{r.register(name, help, kindCounter, nil, labels)}
}

// Gauge registers (or returns) a gauge with the given label names.
func (r *Registry) Gauge(name, help string, labels ...string) *Gauge {
	return &Gauge{r.register(name, help, kindGauge, nil, labels)}
}

// Histogram registers (or returns) a histogram with the given bucket upper
// bounds (increasing; +Inf is implied) and label names.
func (r *Registry) Histogram(name, help string, buckets []float64, labels ...string) *Histogram {
	return &Histogram{r.register(name, help, kindHistogram, buckets, labels)}
}

// Counter is a value that only goes up, per combination of label values.
type Counter struct{ f *family }

// Inc adds 1 to the series of the given label values.
func (c *Counter) Inc(labelValues ...string) { c.Add(1, labelValues...) }

// Add adds v, which must not be negative, to the series of the given label
// values.
func (c *Counter) Add(v float64, labelValues ...string) {
	if v < 0 || math.IsNaN(v) {
		panic(fmt.Sprintf("metrics: counter %s cannot add %v", c.f.name, v))
	}
	c.f.with(labelValues, func(s *series) { s.value += v })
}

// Gauge is a value that goes up and down, per combination of label values.
type Gauge struct{ f *family }

// Set sets the series of the given label values to v.
func (g *Gauge) Set(v float64, labelValues ...string) {
	g.f.with(labelValues, func(s *series) { s.value = v })
}

// Add adds v (which may be negative) to the series of the given label
// values.
func (g *Gauge) Add(v float64, labelValues ...string) {
	g.f.with(labelValues, func(s *series) { s.value += v })
}

// Histogram counts observations in buckets, per combination of label
// values.
type Histogram struct{ f *family }

// Observe records v in the series of the given label values.
func (h *Histogram) Observe(v float64, labelValues ...string) {
	i, _ := slices.BinarySearch(h.f.buckets, v) // first bucket with bound >= v
	h.f.with(labelValues, func(s *series) {
		if s.counts == nil {
			s.counts = make([]uint64, len(h.f.buckets)+1)
		}
		s.counts[i]++
		s.count++
		s.sum += v
	})
}

// with runs fn on the series of the label values, under the family's lock.
func (f *family) with(values []string, fn func(*series)) {
	if len(values) != len(f.labels) {
		panic(fmt.Sprintf("metrics: %s takes %d label values (%v), got %d", f.name, len(f.labels), f.labels, len(values)))
	}
	key := strings.Join(values, "\xff")
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.series[key]
	if s == nil {
		s = &series{values: slices.Clone(values)}
		f.series[key] = s
	}
	fn(s)
}

// WriteText writes every family in the Prometheus text exposition format,
// families sorted by name and series by label values, so that equal
// registries write equal text.
func (r *Registry) WriteText(w io.Writer) error {
	r.mu.Lock()
	fams := make([]*family, 0, len(r.families))
	for _, f := range r.families {
		fams = append(fams, f)
	}
	r.mu.Unlock()
	slices.SortFunc(fams, func(a, b *family) int { return strings.Compare(a.name, b.name) })

	bw := bufio.NewWriter(w)
	for _, f := range fams {
		f.write(bw)
	}
	return bw.Flush()
}

func (f *family) write(w *bufio.Writer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.help != "" {
		fmt.Fprintf(w, "# HELP %s %s\n", f.name, escapeHelp(f.help))
	}
	fmt.Fprintf(w, "# TYPE %s %s\n", f.name, f.kind)
	keys := make([]string, 0, len(f.series))
	for k := range f.series {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		s := f.series[k]
		if f.kind != kindHistogram {
			fmt.Fprintf(w, "%s%s %s\n", f.name, labelText(f.labels, s.values, "", ""), formatValue(s.value))
			continue
		}
		var cum uint64
		for i, b := range f.buckets {
			cum += s.counts[i]
			fmt.Fprintf(w, "%s_bucket%s %d\n", f.name, labelText(f.labels, s.values, "le", formatValue(b)), cum)
		}
		fmt.Fprintf(w, "%s_bucket%s %d\n", f.name, labelText(f.labels, s.values, "le", "+Inf"), s.count)
		fmt.Fprintf(w, "%s_sum%s %s\n", f.name, labelText(f.labels, s.values, "", ""), formatValue(s.sum))
		fmt.Fprintf(w, "%s_count%s %d\n", f.name, labelText(f.labels, s.values, "", ""), s.count)
	}
}

// labelText renders {a="x",b="y"} (plus an extra label, for le), or
// nothing when there are no labels.
func labelText(names, values []string, extraName, extraValue string) string {
	if len(names) == 0 && extraName == "" {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(n)
		b.WriteString(`="`)
		b.WriteString(escapeLabel(values[i]))
		b.WriteByte('"')
	}
	if extraName != "" {
		if len(names) > 0 {
			b.WriteByte(',')
		}
		b.WriteString(extraName)
		b.WriteString(`="`)
		b.WriteString(extraValue)
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

var (
	labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)

func escapeLabel(s string) string { return labelEscaper.Replace(s) }
func escapeHelp(s string) string  { return helpEscaper.Replace(s) }

func formatValue(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// ServeHTTP writes the registry in the text exposition format.
func (r *Registry) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", ContentType)
	w.Header().Set("Cache-Control", "no-store")
	r.WriteText(w)
}
