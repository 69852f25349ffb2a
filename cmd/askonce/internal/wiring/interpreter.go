package wiring

import (
	"fmt"
	"strings"

	"github.com/askonce/askonce"
	execinterp "github.com/askonce/askonce/exec"
	"github.com/askonce/askonce/internal/cli"
	"github.com/askonce/askonce/openai"
	"github.com/askonce/askonce/rules"
)

// NewInterpreter builds the one interpreter the process shares (the openai
// one remembers what the server supports).
func NewInterpreter(name, profileFiles string, getenv func(string) string) (askonce.Interpreter, error) {
	if err := cli.OneOf("interpreter", name, "rules", "openai", "exec"); err != nil {
		return nil, err
	}
	switch name {
	case "openai":
		cfg, err := openai.ConfigFromEnv(getenv)
		if err == nil {
			var in *openai.Interpreter
			if in, err = openai.New(cfg); err == nil {
				return in, nil
			}
		}
		return nil, cli.UsageError{Msg: fmt.Sprintf("--interpreter openai: %v (set ASKONCE_OPENAI_BASE_URL, ASKONCE_OPENAI_MODEL, ...; see docs/interpreters.md)", err)}
	case "exec":
		cfg, err := execinterp.ConfigFromEnv(getenv)
		if err == nil {
			var in *execinterp.Interpreter
			if in, err = execinterp.New(cfg); err == nil {
				return in, nil
			}
		}
		return nil, cli.UsageError{Msg: fmt.Sprintf("--interpreter exec: %v (set ASKONCE_EXEC_COMMAND; see docs/interpreters.md)", err)}
	}
	files := map[string]string{}
	for _, kv := range strings.Split(profileFiles, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		name, path, ok := strings.Cut(kv, "=")
		if !ok || name == "" || path == "" {
			return nil, cli.UsageError{Msg: fmt.Sprintf("--profile-files %q: want name=path", kv)}
		}
		files[name] = path
	}
	return rules.New(rules.Options{ProfileFiles: files})
}
