package metrics

import "github.com/prometheus/client_golang/prometheus"

// ChannelSends registers askonce_channel_sends_total on r and returns the
// function that counts one send of a channel that reaches people (slack,
// email): its kind (post, update, outcome, question, reply) and outcome
// (ok or error). A failed send is retried; the counter of errors is how an
// outage shows. Call it once per registry.
func (r *Registry) ChannelSends() func(channel, kind string, err error) {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "askonce_channel_sends_total",
		Help: "Sends of the Slack and email channels, by channel, kind and outcome (ok, error); failed sends are retried.",
	}, []string{"channel", "kind", "outcome"})
	r.reg.MustRegister(c)
	return func(channel, kind string, err error) {
		outcome := "ok"
		if err != nil {
			outcome = "error"
		}
		c.WithLabelValues(channel, kind, outcome).Inc()
	}
}
