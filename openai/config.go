package openai

import (
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// ResponseFormat selects how the interpreter asks the server for JSON.
type ResponseFormat string

const (
	// FormatAuto starts with FormatJSONSchema and, when the server rejects
	// it (an error that names response_format or json_schema), falls back
	// to FormatJSONObject and then FormatNone, remembering the downgrade
	// for every later call of the same Interpreter. The default.
	FormatAuto ResponseFormat = "auto"
	// FormatJSONSchema sends response_format {type: json_schema} with the
	// outcome's JSON Schema, so that servers with constrained decoding
	// (OpenAI, vLLM, llama.cpp, Ollama, LM Studio) can only emit its shape.
	FormatJSONSchema ResponseFormat = "json_schema"
	// FormatJSONObject sends response_format {type: json_object} (JSON
	// mode): any JSON object; the shape comes from the system prompt.
	FormatJSONObject ResponseFormat = "json_object"
	// FormatNone sends no response_format; the system prompt alone asks
	// for JSON, and the engine's parser tolerates a Markdown code fence.
	FormatNone ResponseFormat = "none"
)

// Valid reports whether f is one of the four formats.
func (f ResponseFormat) Valid() bool {
	switch f {
	case FormatAuto, FormatJSONSchema, FormatJSONObject, FormatNone:
		return true
	}
	return false
}

// Price is what a model costs, in US dollars per one million tokens.
type Price struct {
	Prompt     float64 `json:"prompt"`
	Completion float64 `json:"completion"`
}

// Cost returns the price of one call's tokens in US dollars.
func (p Price) Cost(promptTokens, completionTokens int64) float64 {
	return (float64(promptTokens)*p.Prompt + float64(completionTokens)*p.Completion) / 1e6
}

// Defaults of Config's zero-valued fields.
const (
	DefaultAPIKeyEnv        = "OPENAI_API_KEY"
	DefaultMaxRetries       = 3
	DefaultRetryBaseDelay   = 500 * time.Millisecond
	DefaultMaxRetryDelay    = 30 * time.Second
	DefaultMaxResponseBytes = 16 << 20
)

// Config configures New. BaseURL and Model are required; every other zero
// value works. ConfigFromEnv fills one from ASKONCE_OPENAI_* variables.
type Config struct {
	// BaseURL is the server's OpenAI-compatible API root, the part before
	// /chat/completions: https://api.openai.com/v1 for OpenAI,
	// http://127.0.0.1:11434/v1 for Ollama, http://127.0.0.1:8000/v1 for
	// vLLM, http://127.0.0.1:8080/v1 for llama.cpp's server,
	// http://127.0.0.1:1234/v1 for LM Studio.
	BaseURL string
	// Model is the model name the server knows (gpt-4o-mini, llama3.1:8b,
	// Qwen/Qwen2.5-7B-Instruct, ...).
	Model string

	// APIKey is sent as a bearer token. When empty, the key is read from
	// the environment variable named by APIKeyEnv when New runs. An empty
	// key sends no Authorization header, which local servers accept.
	APIKey string
	// APIKeyEnv names the variable holding the key. Default
	// OPENAI_API_KEY.
	APIKeyEnv string
	// Getenv reads APIKeyEnv. Default os.Getenv.
	Getenv func(string) string

	// Temperature, when set, is sent as is; it must be within [0, 2].
	Temperature *float64
	// MaxTokens, when positive, is sent as max_tokens (the field every
	// compatible server reads).
	MaxTokens int64
	// Seed, when set, is sent for reproducible sampling where the server
	// supports it.
	Seed *int64

	// RequestTimeout bounds one HTTP request; a request that times out is
	// retried like a 5xx. Zero means only the caller's context (the
	// engine's InterpretTimeout) bounds it.
	RequestTimeout time.Duration
	// ResponseFormat is auto (default), json_schema, json_object or none.
	ResponseFormat ResponseFormat
	// MaxRetries is how often one call is retried after 429, 5xx, a
	// connection error or a request timeout. Zero means
	// DefaultMaxRetries; negative means never.
	MaxRetries int
	// RetryBaseDelay is the first backoff delay, doubled on each retry,
	// with jitter, when the server sends no Retry-After. Default 500ms.
	RetryBaseDelay time.Duration
	// MaxRetryDelay caps one wait. A Retry-After longer than it, or one
	// that would end past the context's deadline, ends the retries at
	// once. Default 30s.
	MaxRetryDelay time.Duration
	// MaxResponseBytes caps a response body; a larger one fails the call.
	// Default 16 MiB. (The engine separately caps the output it parses
	// and stores.)
	MaxResponseBytes int64

	// Prices maps a model name to its price. The configured Model is
	// looked up first, then the model the server says it used. A model
	// without a price costs 0.
	Prices map[string]Price

	// SystemPrompt replaces DefaultSystemPrompt when set.
	SystemPrompt string
	// HTTPClient makes the requests. Default: a client with its own
	// transport (proxy settings from the environment).
	HTTPClient *http.Client
	// Logger receives a warning when auto detection downgrades the
	// response format. Default discards.
	Logger *slog.Logger
}

// validate checks cfg and returns it with defaults filled in.
func (cfg Config) validate() (Config, error) {
	cfg.BaseURL = strings.TrimSpace(cfg.BaseURL)
	cfg.Model = strings.TrimSpace(cfg.Model)
	switch {
	case cfg.BaseURL == "":
		return cfg, fmt.Errorf("openai: base URL is required (e.g. https://api.openai.com/v1, or http://127.0.0.1:11434/v1 for Ollama)")
	case cfg.Model == "":
		return cfg, fmt.Errorf("openai: model is required (e.g. gpt-4o-mini, or llama3.1:8b for Ollama)")
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return cfg, fmt.Errorf("openai: base URL %q is not an http or https URL", cfg.BaseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return cfg, fmt.Errorf("openai: base URL %q must not have a query or fragment", cfg.BaseURL)
	}
	if t := cfg.Temperature; t != nil && (math.IsNaN(*t) || *t < 0 || *t > 2) {
		return cfg, fmt.Errorf("openai: temperature %v is outside [0, 2]", *t)
	}
	if cfg.MaxTokens < 0 {
		return cfg, fmt.Errorf("openai: max tokens %d is negative", cfg.MaxTokens)
	}
	if cfg.RequestTimeout < 0 || cfg.RetryBaseDelay < 0 || cfg.MaxRetryDelay < 0 || cfg.MaxResponseBytes < 0 {
		return cfg, fmt.Errorf("openai: timeouts, delays and sizes must not be negative")
	}
	if cfg.ResponseFormat == "" {
		cfg.ResponseFormat = FormatAuto
	}
	if !cfg.ResponseFormat.Valid() {
		return cfg, fmt.Errorf("openai: response format %q is not auto, json_schema, json_object or none", cfg.ResponseFormat)
	}
	for m, p := range cfg.Prices {
		if p.Prompt < 0 || p.Completion < 0 || math.IsNaN(p.Prompt) || math.IsNaN(p.Completion) {
			return cfg, fmt.Errorf("openai: price of model %q is negative or not a number", m)
		}
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.RetryBaseDelay == 0 {
		cfg.RetryBaseDelay = DefaultRetryBaseDelay
	}
	if cfg.MaxRetryDelay == 0 {
		cfg.MaxRetryDelay = DefaultMaxRetryDelay
	}
	if cfg.MaxResponseBytes == 0 {
		cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if cfg.APIKeyEnv == "" {
		cfg.APIKeyEnv = DefaultAPIKeyEnv
	}
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.APIKey == "" {
		cfg.APIKey = strings.TrimSpace(cfg.Getenv(cfg.APIKeyEnv))
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
		if t, ok := http.DefaultTransport.(*http.Transport); ok {
			cfg.HTTPClient.Transport = t.Clone()
		}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return cfg, nil
}

// Environment variables read by ConfigFromEnv.
const (
	EnvBaseURL        = "ASKONCE_OPENAI_BASE_URL"
	EnvModel          = "ASKONCE_OPENAI_MODEL"
	EnvAPIKeyEnv      = "ASKONCE_OPENAI_API_KEY_ENV"
	EnvTemperature    = "ASKONCE_OPENAI_TEMPERATURE"
	EnvMaxTokens      = "ASKONCE_OPENAI_MAX_TOKENS"
	EnvSeed           = "ASKONCE_OPENAI_SEED"
	EnvTimeout        = "ASKONCE_OPENAI_TIMEOUT"
	EnvResponseFormat = "ASKONCE_OPENAI_RESPONSE_FORMAT"
	EnvMaxRetries     = "ASKONCE_OPENAI_MAX_RETRIES"
	EnvPrices         = "ASKONCE_OPENAI_PRICES"
)

// ConfigFromEnv builds a Config from ASKONCE_OPENAI_* variables read with
// getenv (os.Getenv in a program; a map lookup in a test):
//
//	ASKONCE_OPENAI_BASE_URL         required, e.g. http://127.0.0.1:11434/v1
//	ASKONCE_OPENAI_MODEL            required, e.g. llama3.1:8b
//	ASKONCE_OPENAI_API_KEY_ENV      name of the variable holding the key (default OPENAI_API_KEY)
//	ASKONCE_OPENAI_TEMPERATURE      e.g. 0.2
//	ASKONCE_OPENAI_MAX_TOKENS       e.g. 4096
//	ASKONCE_OPENAI_SEED             e.g. 42
//	ASKONCE_OPENAI_TIMEOUT          per HTTP request, a Go duration, e.g. 90s
//	ASKONCE_OPENAI_RESPONSE_FORMAT  auto | json_schema | json_object | none
//	ASKONCE_OPENAI_MAX_RETRIES      e.g. 3 (negative: never retry)
//	ASKONCE_OPENAI_PRICES           model=prompt/completion USD per 1M tokens, comma separated,
//	                                e.g. gpt-4o-mini=0.15/0.60,gpt-4o=2.50/10
//
// The API key itself is read through getenv from the variable that
// ASKONCE_OPENAI_API_KEY_ENV names, so it never has to be written into a
// configuration. Malformed values are errors; missing required values are
// left for New to report.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	cfg := Config{
		BaseURL:        get(EnvBaseURL),
		Model:          get(EnvModel),
		APIKeyEnv:      get(EnvAPIKeyEnv),
		ResponseFormat: ResponseFormat(strings.ToLower(get(EnvResponseFormat))),
		Getenv:         getenv,
	}
	if v := get(EnvTemperature); v != "" {
		t, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return cfg, fmt.Errorf("openai: %s=%q is not a number", EnvTemperature, v)
		}
		cfg.Temperature = &t
	}
	if v := get(EnvMaxTokens); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return cfg, fmt.Errorf("openai: %s=%q is not an integer", EnvMaxTokens, v)
		}
		cfg.MaxTokens = n
	}
	if v := get(EnvSeed); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return cfg, fmt.Errorf("openai: %s=%q is not an integer", EnvSeed, v)
		}
		cfg.Seed = &n
	}
	if v := get(EnvTimeout); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return cfg, fmt.Errorf("openai: %s=%q is not a duration such as 90s", EnvTimeout, v)
		}
		cfg.RequestTimeout = d
	}
	if v := get(EnvMaxRetries); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return cfg, fmt.Errorf("openai: %s=%q is not an integer", EnvMaxRetries, v)
		}
		if n == 0 {
			n = -1 // "0" in the environment means no retries, not the default
		}
		cfg.MaxRetries = n
	}
	if v := get(EnvPrices); v != "" {
		p, err := ParsePrices(v)
		if err != nil {
			return cfg, fmt.Errorf("openai: %s: %w", EnvPrices, err)
		}
		cfg.Prices = p
	}
	return cfg, nil
}

// ParsePrices reads a price table written as comma-separated
// model=prompt/completion entries, in US dollars per one million tokens:
// "gpt-4o-mini=0.15/0.60,llama3.1:8b=0/0". The model is everything before
// the last '=', so names with ':' or '/' work.
func ParsePrices(s string) (map[string]Price, error) {
	prices := make(map[string]Price)
	for _, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		i := strings.LastIndexByte(entry, '=')
		if i <= 0 {
			return nil, fmt.Errorf("price %q is not model=prompt/completion", entry)
		}
		model := strings.TrimSpace(entry[:i])
		ps, cs, ok := strings.Cut(entry[i+1:], "/")
		if !ok {
			return nil, fmt.Errorf("price %q is not model=prompt/completion", entry)
		}
		p, err1 := strconv.ParseFloat(strings.TrimSpace(ps), 64)
		c, err2 := strconv.ParseFloat(strings.TrimSpace(cs), 64)
		if err1 != nil || err2 != nil || p < 0 || c < 0 {
			return nil, fmt.Errorf("price %q: prompt and completion must be non-negative numbers", entry)
		}
		prices[model] = Price{Prompt: p, Completion: c}
	}
	return prices, nil
}
