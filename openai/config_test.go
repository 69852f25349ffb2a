package openai_test

import (
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce/openai"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// ConfigFromEnv reads every ASKONCE_OPENAI_* variable, and the key from
// the variable it names.
func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	cfg, err := openai.ConfigFromEnv(env(map[string]string{
		"ASKONCE_OPENAI_BASE_URL":        "http://127.0.0.1:11434/v1",
		"ASKONCE_OPENAI_MODEL":           "llama3.1:8b",
		"ASKONCE_OPENAI_API_KEY_ENV":     "OLLAMA_KEY",
		"OLLAMA_KEY":                     "secret",
		"ASKONCE_OPENAI_TEMPERATURE":     "0.2",
		"ASKONCE_OPENAI_MAX_TOKENS":      "4096",
		"ASKONCE_OPENAI_SEED":            "7",
		"ASKONCE_OPENAI_TIMEOUT":         "90s",
		"ASKONCE_OPENAI_RESPONSE_FORMAT": "JSON_OBJECT",
		"ASKONCE_OPENAI_MAX_RETRIES":     "0",
		"ASKONCE_OPENAI_PRICES":          "gpt-4o-mini=0.15/0.60, llama3.1:8b=0/0,meta-llama/Llama-3.1-8B=0.1/0.2",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BaseURL != "http://127.0.0.1:11434/v1" || cfg.Model != "llama3.1:8b" || cfg.APIKeyEnv != "OLLAMA_KEY" ||
		*cfg.Temperature != 0.2 || cfg.MaxTokens != 4096 || *cfg.Seed != 7 || cfg.RequestTimeout != 90*time.Second ||
		cfg.ResponseFormat != openai.FormatJSONObject || cfg.MaxRetries != -1 {
		t.Errorf("config %+v", cfg)
	}
	if len(cfg.Prices) != 3 || cfg.Prices["gpt-4o-mini"] != (openai.Price{Prompt: 0.15, Completion: 0.60}) || cfg.Prices["meta-llama/Llama-3.1-8B"].Completion != 0.2 {
		t.Errorf("prices %+v", cfg.Prices)
	}
	if cfg.Getenv("OLLAMA_KEY") != "secret" {
		t.Error("the key is not read through getenv")
	}
	if _, err := openai.New(cfg); err != nil {
		t.Errorf("New: %v", err)
	}
}

func TestConfigFromEnvErrors(t *testing.T) {
	t.Parallel()
	for k, v := range map[string]string{
		"ASKONCE_OPENAI_TEMPERATURE": "warm",
		"ASKONCE_OPENAI_MAX_TOKENS":  "lots",
		"ASKONCE_OPENAI_SEED":        "1.5",
		"ASKONCE_OPENAI_TIMEOUT":     "90",
		"ASKONCE_OPENAI_MAX_RETRIES": "x",
		"ASKONCE_OPENAI_PRICES":      "gpt-4o=cheap",
	} {
		if _, err := openai.ConfigFromEnv(env(map[string]string{k: v})); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%q: error %v, want one naming the variable", k, v, err)
		}
	}
}

// New rejects a config it cannot use, saying what is wrong.
func TestNewValidates(t *testing.T) {
	t.Parallel()
	hot, nan := 2.5, -0.1
	for _, tc := range []struct {
		cfg  openai.Config
		want string
	}{
		{openai.Config{Model: "m"}, "base URL is required"},
		{openai.Config{BaseURL: "http://127.0.0.1:8000/v1"}, "model is required"},
		{openai.Config{BaseURL: "127.0.0.1:8000", Model: "m"}, "not an http or https URL"},
		{openai.Config{BaseURL: "ftp://host/v1", Model: "m"}, "not an http or https URL"},
		{openai.Config{BaseURL: "http://h/v1", Model: "m", Temperature: &hot}, "temperature 2.5 is outside [0, 2]"},
		{openai.Config{BaseURL: "http://h/v1", Model: "m", Temperature: &nan}, "outside [0, 2]"},
		{openai.Config{BaseURL: "http://h/v1", Model: "m", ResponseFormat: "xml"}, `response format "xml"`},
		{openai.Config{BaseURL: "http://h/v1", Model: "m", MaxTokens: -1}, "max tokens"},
		{openai.Config{BaseURL: "http://h/v1", Model: "m", Prices: map[string]openai.Price{"m": {Prompt: -1}}}, "price"},
	} {
		_, err := openai.New(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v): %v, want %q", tc.cfg, err, tc.want)
		}
	}
	in, err := openai.New(openai.Config{BaseURL: "http://127.0.0.1:8000/v1", Model: "m", Getenv: env(nil)})
	if err != nil || in.ResponseFormat() != openai.FormatJSONSchema || in.Model() != "m" {
		t.Errorf("minimal config: %v", err)
	}
}

func TestParsePrices(t *testing.T) {
	t.Parallel()
	p, err := openai.ParsePrices("a=1/2,,b:7b=0.5/0.25 ")
	if err != nil || p["a"] != (openai.Price{Prompt: 1, Completion: 2}) || p["b:7b"] != (openai.Price{Prompt: 0.5, Completion: 0.25}) {
		t.Fatalf("%v %v", p, err)
	}
	for _, bad := range []string{"a=1", "=1/2", "a=x/2", "a=-1/2"} {
		if _, err := openai.ParsePrices(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if c := (openai.Price{Prompt: 2, Completion: 8}).Cost(1_000_000, 500_000); c != 6 {
		t.Errorf("cost %v", c)
	}
}
