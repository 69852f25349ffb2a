package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/buildinfo"
)

// Interpreter is the openai interpreter: one chat completion per attempt
// against any OpenAI-compatible server. It is safe for concurrent use.
type Interpreter struct {
	cfg Config
	// endpoint is BaseURL + /chat/completions.
	endpoint string
	// format is the response format in use: the configured one, or in
	// auto mode the best one the server has not rejected yet.
	format atomic.Value // ResponseFormat
}

var _ askonce.Interpreter = (*Interpreter)(nil)

// New returns an Interpreter for cfg, or an error naming what is missing
// or malformed (no base URL, no model, a temperature outside [0, 2], ...).
// It makes no request.
func New(cfg Config) (*Interpreter, error) {
	cfg, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	// Only the configuration decides where and what askonce sends: no
	// OPENAI_* variable (base URL, organization, headers) is read.
	in := &Interpreter{cfg: cfg, endpoint: strings.TrimSuffix(cfg.BaseURL, "/") + "/chat/completions"}
	f := cfg.ResponseFormat
	if f == FormatAuto {
		f = FormatJSONSchema
	}
	in.format.Store(f)
	return in, nil
}

// Model returns the configured model name.
func (in *Interpreter) Model() string { return in.cfg.Model }

// ResponseFormat returns the response format the next call will use. In
// auto mode it starts at json_schema and moves down as the server rejects
// formats.
func (in *Interpreter) ResponseFormat() ResponseFormat {
	return in.format.Load().(ResponseFormat)
}

// Interpret makes one chat completion for req and returns the model's
// message content as Raw, unchecked (the engine parses and validates it),
// with the call's token usage and its cost from the price table.
//
// Within the one attempt it retries 429, 5xx, connection errors and
// request timeouts up to MaxRetries times, waiting as Retry-After says or
// with exponential backoff, but never past ctx's deadline; and in auto
// mode it repeats a call at once with a lesser response format when the
// server rejects the current one. Any other failure, or the last retry's,
// is an error carrying the HTTP status and the server's message, with the
// response body (if any) as Raw.
func (in *Interpreter) Interpret(ctx context.Context, req *askonce.Request) (*askonce.Response, error) {
	system := in.cfg.SystemPrompt
	if system == "" {
		system = DefaultSystemPrompt
	}
	messages := []chatMessage{
		{Role: "system", Content: system},
		{Role: "user", Content: UserMessage(req)},
	}
	retries := 0
	for {
		format := in.ResponseFormat()
		ex := in.exchange(ctx, in.params(messages, format, req))
		if ex.err == nil {
			return in.response(ex)
		}
		resp := &askonce.Response{Raw: ex.body}
		if ctx.Err() != nil {
			return resp, fmt.Errorf("openai: %w", ex.err)
		}
		if in.cfg.ResponseFormat == FormatAuto && ex.formatRejected(format) {
			next := lesser(format)
			if in.format.CompareAndSwap(format, next) {
				in.cfg.Logger.Warn("openai: server rejected response format; falling back",
					"from", format, "to", next, "status", ex.status, "error", ex.message)
			}
			continue
		}
		if !ex.retryable() || in.cfg.MaxRetries == 0 {
			return resp, fmt.Errorf("openai: %w", ex.err)
		}
		if retries >= in.cfg.MaxRetries {
			return resp, fmt.Errorf("openai: giving up after %d retries: %w", retries, ex.err)
		}
		delay, why := in.delay(ex, retries)
		if dl, ok := ctx.Deadline(); ok && time.Now().Add(delay).After(dl) {
			return resp, fmt.Errorf("openai: not retrying (%s would pass the deadline): %w", why, ex.err)
		}
		if delay > in.cfg.MaxRetryDelay {
			return resp, fmt.Errorf("openai: not retrying (%s exceeds the %s limit): %w", why, in.cfg.MaxRetryDelay, ex.err)
		}
		if err := sleep(ctx, delay); err != nil {
			return resp, fmt.Errorf("openai: waiting to retry (%s): %w; last error: %v", why, err, ex.err)
		}
		retries++
	}
}

// chatRequest is the body of POST /chat/completions: the fields askonce
// sends of OpenAI's chat-completions API, which compatible servers
// (Ollama, vLLM, llama.cpp, LM Studio) read too.
type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []chatMessage   `json:"messages"`
	Temperature    *float64        `json:"temperature,omitempty"`
	MaxTokens      int64           `json:"max_tokens,omitempty"`
	Seed           *int64          `json:"seed,omitempty"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// responseFormat is {"type":"json_schema","json_schema":{...}} or
// {"type":"json_object"}.
type responseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *jsonSchema `json:"json_schema,omitempty"`
}

type jsonSchema struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Schema      map[string]any `json:"schema"`
	Strict      bool           `json:"strict"`
}

// completion is the part of a chat completion askonce reads.
type completion struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content string `json:"content"`
			Refusal string `json:"refusal"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

// params builds the chat completion request.
func (in *Interpreter) params(messages []chatMessage, format ResponseFormat, req *askonce.Request) *chatRequest {
	p := &chatRequest{
		Model:       in.cfg.Model,
		Messages:    messages,
		Temperature: in.cfg.Temperature,
		MaxTokens:   in.cfg.MaxTokens,
		Seed:        in.cfg.Seed,
	}
	switch format {
	case FormatJSONSchema:
		p.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: &jsonSchema{
			Name:        "askonce_outcome",
			Description: "A plan, or exactly one clarifying question.",
			Schema:      OutcomeSchema(mustPlan(req), req.SpecSchema),
		}}
	case FormatJSONObject:
		p.ResponseFormat = &responseFormat{Type: "json_object"}
	}
	return p
}

// response turns a successful exchange into the attempt's response.
func (in *Interpreter) response(ex *exchange) (*askonce.Response, error) {
	c := ex.completion
	if c == nil || len(c.Choices) == 0 {
		return &askonce.Response{Raw: ex.body}, fmt.Errorf("openai: HTTP %d: the response has no choices", ex.status)
	}
	msg := c.Choices[0].Message
	raw := msg.Content
	if raw == "" && msg.Refusal != "" {
		// A refusal is recorded, and fed back, like any invalid output.
		raw = msg.Refusal
	}
	u := askonce.Usage{PromptTokens: c.Usage.PromptTokens, CompletionTokens: c.Usage.CompletionTokens}
	price, ok := in.cfg.Prices[in.cfg.Model]
	if !ok {
		price = in.cfg.Prices[c.Model]
	}
	u.CostUSD = price.Cost(u.PromptTokens, u.CompletionTokens)
	return &askonce.Response{Raw: []byte(raw), Usage: u}, nil
}

// exchange is one HTTP request and what came back.
type exchange struct {
	status     int // 0 when no response arrived
	header     http.Header
	body       []byte
	completion *completion
	// message is the server's error message, from the body.
	message string
	// timedOut is set when RequestTimeout (not the caller) ended it.
	timedOut bool
	err      error
}

// exchange sends one request and keeps the status, headers and
// (size-capped) body of the response, so that error bodies that are not
// OpenAI's shape still yield a message and a status.
func (in *Interpreter) exchange(ctx context.Context, p *chatRequest) *exchange {
	ex := &exchange{}
	rctx := ctx
	if in.cfg.RequestTimeout > 0 {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, in.cfg.RequestTimeout)
		defer cancel()
	}
	err := in.roundTrip(rctx, p, ex)
	switch {
	case err == nil:
		return ex
	case ex.status >= 400:
		ex.message = errorMessage(ex.body)
		ex.err = &StatusError{StatusCode: ex.status, Message: ex.message}
	case rctx.Err() != nil && ctx.Err() == nil:
		ex.timedOut = true
		ex.err = fmt.Errorf("request timed out after %s: %w", in.cfg.RequestTimeout, err)
	case ex.status != 0:
		// A 2xx (or 1xx/3xx) that is not a completion.
		ex.err = fmt.Errorf("HTTP %d: %w", ex.status, err)
	default:
		ex.err = err
	}
	return ex
}

// roundTrip posts p and fills ex with the response, and with the
// completion when the status is 2xx and the body is one.
func (in *Interpreter) roundTrip(ctx context.Context, p *chatRequest, ex *exchange) error {
	body, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encoding the request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, in.endpoint, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "askonce/"+buildinfo.Get())
	if in.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+in.cfg.APIKey)
	}
	res, err := in.cfg.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	ex.status, ex.header = res.StatusCode, res.Header
	ex.body, err = io.ReadAll(io.LimitReader(res.Body, in.cfg.MaxResponseBytes+1))
	if int64(len(ex.body)) > in.cfg.MaxResponseBytes {
		ex.body = ex.body[:in.cfg.MaxResponseBytes]
		return fmt.Errorf("response body exceeds %d bytes", in.cfg.MaxResponseBytes)
	}
	if err != nil {
		return fmt.Errorf("reading response body: %w", err)
	}
	if res.StatusCode >= 400 {
		return errors.New(http.StatusText(res.StatusCode))
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return fmt.Errorf("unexpected status %s", res.Status)
	}
	var c completion
	if err := json.Unmarshal(ex.body, &c); err != nil {
		return fmt.Errorf("the body is not a chat completion: %w", err)
	}
	ex.completion = &c
	return nil
}

// retryable reports whether the exchange failed in a way that may pass:
// 408, 409, 429, 5xx, no response at all, or a request timeout.
func (ex *exchange) retryable() bool {
	switch {
	case ex.timedOut:
		return true
	case ex.status == 0:
		var se *StatusError
		return !errors.As(ex.err, &se)
	case ex.status == http.StatusRequestTimeout, ex.status == http.StatusConflict,
		ex.status == http.StatusTooManyRequests, ex.status >= 500:
		return true
	}
	return false
}

// formatRejected reports whether the server refused the response format
// used: an error (other than 429) whose message names the format.
func (ex *exchange) formatRejected(used ResponseFormat) bool {
	if ex.status < 400 || ex.status == http.StatusTooManyRequests || used == FormatNone {
		return false
	}
	text := strings.ToLower(ex.message + " " + string(ex.body))
	words := []string{"response_format", "response format", "responseformat"}
	switch used {
	case FormatJSONSchema:
		words = append(words, "json_schema", "json schema", "structured output")
	case FormatJSONObject:
		words = append(words, "json_object", "json mode")
	}
	for _, w := range words {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// lesser is the format to try after f was rejected.
func lesser(f ResponseFormat) ResponseFormat {
	if f == FormatJSONSchema {
		return FormatJSONObject
	}
	return FormatNone
}

// StatusError is a response with an HTTP error status. Message is the
// server's error message (OpenAI's error.message, or what the server sent
// instead).
type StatusError struct {
	StatusCode int
	Message    string
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("HTTP %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// maxMessage caps an error message taken from a response body.
const maxMessage = 1 << 10

// errorMessage finds the error message in a response body: OpenAI's
// {"error": {"message"}}, {"error": "..."}, vLLM's top-level "message",
// FastAPI's "detail", or else the body itself as text.
func errorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	msg := ""
	if json.Unmarshal(body, &v) == nil {
		var obj struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &obj) == nil && obj.Message != "":
			msg = obj.Message
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			msg = s
		case v.Message != "":
			msg = v.Message
		case json.Unmarshal(v.Detail, &s) == nil && s != "":
			msg = s
		case len(v.Detail) > 0:
			msg = string(v.Detail)
		}
	}
	if msg == "" {
		msg = string(body)
	}
	msg = strings.Join(strings.Fields(strings.ToValidUTF8(msg, "")), " ")
	if len(msg) > maxMessage {
		msg = strings.ToValidUTF8(msg[:maxMessage], "") + "…"
	}
	return msg
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
