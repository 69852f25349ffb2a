package askonce

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ValidateCandidates checks a job's candidates (Job.Candidates): at most
// MaxCandidates names, each valid UTF-8, at most MaxCandidateBytes, with
// visible text and no control characters. The error names the first bad
// entry by its index.
func ValidateCandidates(cs []string) error {
	if len(cs) > MaxCandidates {
		return Errorf(EINVALID, "%d candidates given; the limit is %d", len(cs), MaxCandidates)
	}
	for i, c := range cs {
		switch {
		case !utf8.ValidString(c):
			return Errorf(EINVALID, "candidates[%d] is not valid UTF-8", i)
		case len(c) > MaxCandidateBytes:
			return Errorf(EINVALID, "candidates[%d] is %d bytes; the limit is %d", i, len(c), MaxCandidateBytes)
		case strings.TrimSpace(c) == "":
			return Errorf(EINVALID, "candidates[%d] is empty", i)
		case strings.IndexFunc(c, unicode.IsControl) >= 0:
			return Errorf(EINVALID, "candidates[%d] holds a control character", i)
		}
	}
	return nil
}
