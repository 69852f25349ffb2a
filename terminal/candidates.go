package terminal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/cli"
)

// candidateFlags are --candidate and --candidates-file: the names of the
// things besides files a goal may refer to (askonce.Job.Candidates).
type candidateFlags struct {
	names []string // --candidate, in order
	file  string
}

func (c *candidateFlags) flags(s *cli.Settings) {
	s.Repeated(&c.names, "candidate", "NAME", "a name the goal may refer to besides files (an object, environment, branch or table); repeat it for each")
	s.String(&c.file, "candidates-file", "", fmt.Sprintf("a file of such names, one a line (blank lines and lines starting with # skipped); at most %d names in all, each at most %d bytes", askonce.MaxCandidates, askonce.MaxCandidateBytes))
}

// list returns the --candidate names, then the file's, or a usage error
// naming the bad flag value or the file's line.
func (c *candidateFlags) list() ([]string, error) {
	out := c.names
	for _, n := range c.names {
		if err := askonce.ValidateCandidate(n); err != nil {
			return nil, cli.UsageError{Msg: fmt.Sprintf("--candidate %q: the name %s", n, askonce.ErrorMessage(err))}
		}
	}
	if c.file != "" {
		fromFile, err := readCandidates(c.file, askonce.MaxCandidates-len(out))
		if err != nil {
			return nil, err
		}
		out = append(out, fromFile...)
	}
	if len(out) > askonce.MaxCandidates {
		return nil, cli.UsageError{Msg: fmt.Sprintf("--candidate: %d names given; the limit is %d", len(out), askonce.MaxCandidates)}
	}
	return out, nil
}

// maxCandidatesFile bounds what --candidates-file reads: room for the most
// names at their longest, with comments.
const maxCandidatesFile = 4 << 20

// readCandidates reads a --candidates-file: one name a line, surrounding
// space trimmed, blank lines and # comments skipped, at most room names.
func readCandidates(path string, room int) ([]string, error) {
	bad := func(format string, args ...any) error {
		return cli.UsageError{Msg: "--candidates-file " + path + ": " + fmt.Sprintf(format, args...)}
	}
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, bad("%v", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCandidatesFile+1))
	if err != nil {
		return nil, bad("%v", err)
	}
	if len(data) > maxCandidatesFile {
		return nil, bad("larger than %d MiB", maxCandidatesFile>>20)
	}
	var names []string
	for i, line := range bytes.Split(data, []byte("\n")) {
		name := strings.TrimSpace(string(line))
		if name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		if err := askonce.ValidateCandidate(name); err != nil {
			return nil, bad("line %d: the name %s", i+1, askonce.ErrorMessage(err))
		}
		if len(names) == room {
			return nil, bad("line %d: more than %d names in all (with --candidate), the limit", i+1, askonce.MaxCandidates)
		}
		names = append(names, name)
	}
	return names, nil
}
