// Package metrics is askonce's measurements on the Prometheus client
// library: a [Registry] holding the Go runtime and process collectors and
// the askonce_* metrics, served at /metrics by promhttp, and an [Observer]
// that turns the engine's transitions, interpreter attempts, builder
// deliveries, MCP elicitations and HTTP requests into those metrics.
//
// A Registry is safe for concurrent use.
package metrics

import (
	"io"
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"
)

// DefBuckets are histogram buckets, in seconds, for request latencies.
var DefBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Registry is the Prometheus registry a process serves at /metrics: the Go
// runtime and process collectors, and (through [NewObserver]) the askonce_*
// metrics. The zero value is not usable; call NewRegistry.
type Registry struct {
	reg     *prometheus.Registry
	handler http.Handler

	obsOnce sync.Once
	obs     *Observer
}

// NewRegistry returns a registry with the Go runtime (go_*) and process
// (process_*) collectors registered.
func NewRegistry() *Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return &Registry{
		reg:     reg,
		handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}),
	}
}

// Prometheus returns the underlying registry, for registering further
// collectors or gathering in tests.
func (r *Registry) Prometheus() *prometheus.Registry { return r.reg }

// ServeHTTP writes the registry in the exposition format the scraper asks
// for (the text format by default).
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	r.handler.ServeHTTP(w, req)
}

// WriteText writes every metric family in the Prometheus text exposition
// format, families sorted by name.
func (r *Registry) WriteText(w io.Writer) error {
	fams, err := r.reg.Gather()
	if err != nil {
		return err
	}
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range fams {
		if err := enc.Encode(f); err != nil {
			return err
		}
	}
	return nil
}
