package dispatch

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/tracing"
)

// Standard Webhooks header names (https://www.standardwebhooks.com).
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// EventJobSucceeded is the type of the webhook payload that carries a
// successful job.
const EventJobSucceeded = "job.succeeded"

// SecretPrefix marks a Standard Webhooks secret: the HMAC key follows,
// base64-encoded.
const SecretPrefix = "whsec_"

// DefaultTolerance is how far a webhook-timestamp may be from the
// receiver's clock when Verify is given no tolerance.
const DefaultTolerance = 5 * time.Minute

// DefaultWebhookTimeout bounds one webhook try when Webhook.Timeout is
// zero.
const DefaultWebhookTimeout = 30 * time.Second

// maxResponseSnippet caps the part of a failed response's body kept in the
// delivery error.
const maxResponseSnippet = 512

// Errors of Verify.
var (
	ErrMissingHeaders = errors.New("webhook: missing webhook-id, webhook-timestamp or webhook-signature")
	ErrTimestamp      = errors.New("webhook: timestamp outside the tolerance")
	ErrSignature      = errors.New("webhook: no matching signature")
)

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
// with Standard Webhooks headers: webhook-id is the job id (the same on
// every retry, with the same body, so receivers can deduplicate),
// webhook-timestamp the unix seconds of the try, and webhook-signature
// its [Sign]ature with Secret.
// A 2xx response is a delivery; any other status, a redirect, or a network
// error is a failed try.
type Webhook struct {
	// URL receives the POST.
	URL string
	// Secret signs every request; see [Sign] for its two accepted forms.
	// Empty sends no webhook-signature header.
	Secret string
	// Client sends the request. Nil means a client that does not follow
	// redirects (a redirected POST would arrive as a GET without body).
	Client *http.Client
	// Timeout bounds one try, response included. Zero means
	// DefaultWebhookTimeout.
	Timeout time.Duration
	// Now is the clock of the timestamps. Nil means time.Now.
	Now func() time.Time
}

// defaultWebhookClient does not follow redirects, so a 3xx is a failed
// try rather than a GET that happens to succeed.
var defaultWebhookClient = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
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

// Post makes one signed POST of body to w.URL as message id, stamped
// now, with header's fields added (a receiver's own token, say): the
// transport of other packages' webhooks, A2A push notifications among
// them. A retry with the same id and body lets a receiver deduplicate.
func (w *Webhook) Post(ctx context.Context, id string, body []byte, header http.Header) error {
	return w.post(ctx, id, w.now(), body, header)
}

// now is the timestamp of a try, in whole seconds.
func (w *Webhook) now() time.Time {
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	return now().UTC().Truncate(time.Second)
}

// post makes one signed POST of body to w.URL, as message id at ts: the
// one transport of builder deliveries and question notifications.
func (w *Webhook) post(ctx context.Context, id string, ts time.Time, body []byte, header http.Header) error {
	if w.URL == "" {
		return errors.New("webhook: no URL configured")
	}
	timeout := w.Timeout
	if timeout <= 0 {
		timeout = DefaultWebhookTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("webhook: %w", stripURL(err))
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "askonce-dispatch")
	req.Header.Set(HeaderID, id)
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	// The try's trace goes with it (W3C traceparent), when there is one.
	tracing.InjectHeader(ctx, req.Header)
	if w.Secret != "" {
		sig, err := Sign(w.Secret, id, ts, body)
		if err != nil {
			return err
		}
		req.Header.Set(HeaderSignature, sig)
	}
	client := w.Client
	if client == nil {
		client = defaultWebhookClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("webhook: %w", stripURL(err))
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponseSnippet))
	// Drain a little more so that the connection can be reused.
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	msg := fmt.Sprintf("webhook: HTTP %s", resp.Status)
	if s := strings.TrimSpace(strings.ToValidUTF8(string(snippet), "")); s != "" {
		msg += ": " + s
	}
	return errors.New(msg)
}

// stripURL drops the URL that net/http puts in its errors: it may carry a
// token in its query, and the error ends up in the job's DeliveryError.
func stripURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s: %w", ue.Op, ue.Err)
	}
	return err
}

// signingKey returns the HMAC key of a secret. A secret with the
// Standard Webhooks prefix "whsec_" holds the key base64-encoded (the form
// that Standard Webhooks libraries read). Any other secret is taken as
// the key itself, byte for byte; note that some Standard Webhooks
// libraries base64-decode an unprefixed secret instead, so give them the
// prefixed form.
func signingKey(secret string) ([]byte, error) {
	if secret == "" {
		return nil, errors.New("webhook: empty secret")
	}
	rest, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return []byte(secret), nil
	}
	key, err := base64.StdEncoding.DecodeString(rest)
	if err != nil {
		return nil, fmt.Errorf("webhook: secret %s... is not base64: %w", SecretPrefix, err)
	}
	if len(key) == 0 {
		return nil, errors.New("webhook: empty secret")
	}
	return key, nil
}

// Sign returns the webhook-signature of a message: "v1," followed by the
// base64 HMAC-SHA256, under the secret's key, of id + "." + the unix
// seconds of ts + "." + body. secret is either "whsec_" + base64(key), as
// Standard Webhooks defines it, or a raw key used byte for byte.
func Sign(secret, id string, ts time.Time, body []byte) (string, error) {
	key, err := signingKey(secret)
	if err != nil {
		return "", err
	}
	return "v1," + base64.StdEncoding.EncodeToString(mac(key, id, ts.Unix(), body)), nil
}

func mac(key []byte, id string, ts int64, body []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(id))
	h.Write([]byte{'.'})
	h.Write(strconv.AppendInt(nil, ts, 10))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}

// Verify checks a received webhook: its three Standard Webhooks headers
// are present, its timestamp is within tolerance of now (zero means
// DefaultTolerance, a negative tolerance skips the check), and one of the
// space-separated "v1,<base64>" signatures matches body under secret. It
// is what a receiver of askonce's webhooks runs, before trusting the body.
func Verify(secret string, headers http.Header, body []byte, tolerance time.Duration) error {
	id, tsText, sigs := headers.Get(HeaderID), headers.Get(HeaderTimestamp), headers.Get(HeaderSignature)
	if id == "" || tsText == "" || sigs == "" {
		return ErrMissingHeaders
	}
	ts, err := strconv.ParseInt(tsText, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: %q is not unix seconds", ErrTimestamp, tsText)
	}
	if tolerance == 0 {
		tolerance = DefaultTolerance
	}
	if tolerance > 0 {
		if d := time.Since(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
			return ErrTimestamp
		}
	}
	key, err := signingKey(secret)
	if err != nil {
		return err
	}
	want := mac(key, id, ts, body)
	for sig := range strings.FieldsSeq(sigs) {
		version, b64, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			continue
		}
		if hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrSignature
}
