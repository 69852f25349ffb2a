package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/webhook"
)

// EventJobSucceeded is the type of the webhook payload that carries a
// successful job.
const EventJobSucceeded = "job.succeeded"

// Envelope is the body of a webhook: a Standard Webhooks payload whose data
// is the job as GET /jobs/{id} shows it, plan included, less what changes
// from one try to the next (version, updatedAt, dispatchStatus,
// deliveryAttempts, deliveryError): every try of a delivery sends the same
// bytes under the same webhook-id. Timestamp is when the job succeeded
// (its delivery was queued), the same on every try too. When the plan
// rests on a default used because nobody answered, data also has
// expiryNote, which says so ("Nobody answered within 24h; the default
// “no” was used.").
type Envelope struct {
	Type      string       `json:"type"`
	Timestamp time.Time    `json:"timestamp"`
	Data      *askonce.Job `json:"data"`
}

// sentEnvelope is an Envelope as it is sent: its job without the fields a
// try changes.
type sentEnvelope struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Data      sentJob   `json:"data"`
}

// sentJob is a job less its delivery bookkeeping. Each field here, always
// nil, shadows the job's field of the same JSON name, and omitempty drops
// it. ExpiryNote adds what the job's JSON does not say in words: that the
// plan rests on a default nobody answered (askonce.Job.ExpiryNote).
type sentJob struct {
	*askonce.Job
	ExpiryNote       string    `json:"expiryNote,omitempty"`
	Version          *struct{} `json:"version,omitempty"`
	UpdatedAt        *struct{} `json:"updatedAt,omitempty"`
	Dispatch         *struct{} `json:"dispatchStatus,omitempty"`
	DeliveryAttempts *struct{} `json:"deliveryAttempts,omitempty"`
	DeliveryError    *struct{} `json:"deliveryError,omitempty"`
}

// Webhook delivers a job by POSTing it as JSON (an [Envelope]) to URL
// with Standard Webhooks headers (a [webhook.Sender]): webhook-id is the
// job id (the same on every retry, with the same body, so receivers can
// deduplicate), webhook-timestamp the unix seconds of the try, and
// webhook-signature its [webhook.Sign]ature with Secret.
// A 2xx response is a delivery; any other status, a redirect, or a network
// error is a failed try.
type Webhook struct {
	// URL receives the POST.
	URL string
	// Secret signs every request; see [webhook.Sign] for its two accepted
	// forms. Empty sends no webhook-signature header.
	Secret string
	// Client sends the request. Nil means a client that does not follow
	// redirects (a redirected POST would arrive as a GET without body).
	Client *http.Client
	// Timeout bounds one try, response included. Zero means
	// webhook.DefaultTimeout.
	Timeout time.Duration
	// Now is the clock of the timestamps. Nil means time.Now.
	Now func() time.Time
}

// Name is "webhook".
func (w *Webhook) Name() string { return "webhook" }

// Deliver POSTs job to w.URL once, as succeeded now. The dispatcher's
// tries give the time the job succeeded instead (deliverAt).
func (w *Webhook) Deliver(ctx context.Context, job *askonce.Job) error {
	return w.deliverAt(ctx, job, w.now())
}

// deliverAt POSTs job to w.URL once, as succeeded at: given the same job
// content and time, every try sends the same body.
func (w *Webhook) deliverAt(ctx context.Context, job *askonce.Job, at time.Time) error {
	body, err := json.Marshal(sentEnvelope{Type: EventJobSucceeded, Timestamp: at.UTC(), Data: sentJob{Job: job, ExpiryNote: job.ExpiryNote()}})
	if err != nil {
		return fmt.Errorf("webhook: encode job: %w", err)
	}
	return w.post(ctx, job.ID, w.now(), body, nil)
}

// sender is w's transport.
func (w *Webhook) sender() *webhook.Sender {
	return &webhook.Sender{URL: w.URL, Secret: w.Secret, Client: w.Client, Timeout: w.Timeout, Now: w.Now}
}

// now is the timestamp of a try, in whole seconds.
func (w *Webhook) now() time.Time { return w.sender().Stamp() }

// post makes one signed POST of body to w.URL, as message id at ts: the
// one transport of builder deliveries and question notifications.
func (w *Webhook) post(ctx context.Context, id string, ts time.Time, body []byte, header http.Header) error {
	return w.sender().PostAt(ctx, id, ts, body, header)
}
