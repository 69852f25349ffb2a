package slack

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
)

// rateLimitIn200 turns Slack's "ratelimited" in an HTTP 200 (ok false,
// with Retry-After) into the 429 it stands for, so that slackapi reports
// a RateLimitedError with its wait and the send is snoozed for it rather
// than counted as a failed try.
type rateLimitIn200 struct{ next http.RoundTripper }

func (t rateLimitIn200) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Retry-After") == "" {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var v struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &v) == nil && !v.OK && v.Error == "ratelimited" {
		resp.StatusCode, resp.Status = http.StatusTooManyRequests, "429 Too Many Requests"
	}
	return resp, nil
}
