// Package webhook sends and checks Standard Webhooks
// (https://www.standardwebhooks.com): a Sender makes one signed POST,
// Sign and Verify make and check the webhook-signature, and GuardedClient
// keeps a POST to a URL that someone other than the operator chose off
// loopback, private and link-local addresses. Builder deliveries and
// question notifications (package dispatch) and A2A push notifications
// (package a2a) all send through it; it imports no queue.
package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/askonce/askonce/internal/tracing"
)

// Standard Webhooks header names.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// SecretPrefix marks a Standard Webhooks secret: the HMAC key follows,
// base64-encoded.
const SecretPrefix = "whsec_"

// DefaultTolerance is how far a webhook-timestamp may be from the
// receiver's clock when Verify is given no tolerance.
const DefaultTolerance = 5 * time.Minute

// DefaultTimeout bounds one POST when Sender.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// maxResponseSnippet caps the part of a failed response's body kept in the
// error.
const maxResponseSnippet = 512

// Errors of Verify.
var (
	ErrMissingHeaders = errors.New("webhook: missing webhook-id, webhook-timestamp or webhook-signature")
	ErrTimestamp      = errors.New("webhook: timestamp outside the tolerance")
	ErrSignature      = errors.New("webhook: no matching signature")
)

// Sender makes signed POSTs of JSON to one URL with Standard Webhooks
// headers: webhook-id is the message id (the same on every retry, with
// the same body, so that receivers can deduplicate), webhook-timestamp
// the unix seconds of the try, and webhook-signature its [Sign]ature with
// Secret. A 2xx response is a success; any other status, a redirect, or a
// network error is an error that names no URL (a URL may carry a token in
// its query, and the error ends up in a job's record).
type Sender struct {
	// URL receives the POST.
	URL string
	// Secret signs every request; see [Sign] for its two accepted forms.
	// Empty sends no webhook-signature header.
	Secret string
	// Client sends the request. Nil means a client that does not follow
	// redirects (a redirected POST would arrive as a GET without body).
	Client *http.Client
	// Timeout bounds one try, response included. Zero means
	// DefaultTimeout.
	Timeout time.Duration
	// Now is the clock of the timestamps. Nil means time.Now.
	Now func() time.Time
}

// defaultClient does not follow redirects, so a 3xx is a failed try
// rather than a GET that happens to succeed.
var defaultClient = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// Post makes one signed POST of body to s.URL as message id, stamped
// now, with header's fields added (a receiver's own token, say).
func (s *Sender) Post(ctx context.Context, id string, body []byte, header http.Header) error {
	return s.PostAt(ctx, id, s.Stamp(), body, header)
}

// Stamp is the timestamp of a try made now, in whole seconds.
func (s *Sender) Stamp() time.Time {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	return now().UTC().Truncate(time.Second)
}

// PostAt makes one signed POST of body to s.URL, as message id at ts.
func (s *Sender) PostAt(ctx context.Context, id string, ts time.Time, body []byte, header http.Header) error {
	if s.URL == "" {
		return errors.New("webhook: no URL configured")
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, bytes.NewReader(body))
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
	if s.Secret != "" {
		sig, err := Sign(s.Secret, id, ts, body)
		if err != nil {
			return err
		}
		req.Header.Set(HeaderSignature, sig)
	}
	client := s.Client
	if client == nil {
		client = defaultClient
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
