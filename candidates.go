package askonce

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ValidateCandidates checks a job's candidates (Job.Candidates): at most
// MaxCandidates names, each valid by ValidateCandidate. The error names
// the first bad entry by its index.
func ValidateCandidates(cs []string) error {
	if len(cs) > MaxCandidates {
		return Errorf(EINVALID, "%d candidates given; the limit is %d", len(cs), MaxCandidates)
	}
	for i, c := range cs {
		if err := ValidateCandidate(c); err != nil {
			return Errorf(EINVALID, "candidates[%d] %s", i, ErrorMessage(err))
		}
	}
	return nil
}

// ValidateCandidate checks one candidate name: valid UTF-8, at most
// MaxCandidateBytes, with visible text and no control characters. The
// EINVALID error's message is a predicate ("is empty", "holds a control
// character") for the caller to give a subject that says where the name
// came from: an index (ValidateCandidates), a file's line (askonce run).
func ValidateCandidate(c string) error {
	switch {
	case !utf8.ValidString(c):
		return Errorf(EINVALID, "is not valid UTF-8")
	case len(c) > MaxCandidateBytes:
		return Errorf(EINVALID, "is %d bytes; the limit is %d", len(c), MaxCandidateBytes)
	case strings.TrimSpace(c) == "":
		return Errorf(EINVALID, "is empty")
	case strings.IndexFunc(c, unicode.IsControl) >= 0:
		return Errorf(EINVALID, "holds a control character")
	}
	return nil
}
