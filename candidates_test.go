package askonce_test

import (
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

func TestValidateCandidatesRejectsWhatIsNotAVisibleName(t *testing.T) {
	t.Parallel()
	many := make([]string, askonce.MaxCandidates+1)
	for i := range many {
		many[i] = "x"
	}
	for name, tc := range map[string]struct {
		in   []string
		want string // "" is valid
	}{
		"none":          {nil, ""},
		"names":         {[]string{"black pepper", "bell pepper", "staging"}, ""},
		"japanese":      {[]string{"黒胡椒"}, ""},
		"too many":      {many, "1001 candidates given; the limit is 1000"},
		"too long":      {[]string{"ok", strings.Repeat("a", 257)}, "candidates[1] is 257 bytes; the limit is 256"},
		"blank":         {[]string{"  "}, "candidates[0] is empty"},
		"control":       {[]string{"a\x00b"}, "candidates[0] holds a control character"},
		"newline":       {[]string{"a", "b\nc"}, "candidates[1] holds a control character"},
		"invalid utf-8": {[]string{"\xff"}, "candidates[0] is not valid UTF-8"},
	} {
		err := askonce.ValidateCandidates(tc.in)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want valid", name, err)
		case tc.want != "" && (err == nil || askonce.ErrorCode(err) != askonce.EINVALID || askonce.ErrorMessage(err) != tc.want):
			t.Errorf("%s: %v, want EINVALID %q", name, err, tc.want)
		}
	}
}
