package server

import (
	"fmt"
	"path"
	"strings"

	"github.com/askonce/askonce"
)

// Recipients are the job recipients an API key may name: the third field
// of its keys file line,
//
//	notify=slack:C0123ABCD,slack:U*,email:*@example.com
//
// Each pattern is "slack:" or "email:" and a path.Match pattern of Slack
// ids or addresses ('*' any run of characters, '?' one). "notify=none"
// allows no recipients. A job naming a recipient that no pattern matches
// is refused with 422; a job naming none gets the server's defaults,
// which are the operator's and always allowed.
type Recipients struct {
	slack, email []string
}

// parseRecipients reads a keys file's "notify=..." field.
func parseRecipients(field string) (*Recipients, error) {
	list, ok := strings.CutPrefix(field, "notify=")
	if !ok {
		return nil, fmt.Errorf("third field %q: want notify=<pattern>,... (slack:<id pattern>, email:<address pattern>, or none)", field)
	}
	r := &Recipients{}
	if list == "none" {
		return r, nil
	}
	for p := range strings.SplitSeq(list, ",") {
		kind, pat, _ := strings.Cut(p, ":")
		if _, err := path.Match(pat, ""); err != nil || pat == "" {
			return nil, fmt.Errorf("notify pattern %q: not a valid pattern", p)
		}
		switch kind {
		case "slack":
			r.slack = append(r.slack, pat)
		case "email":
			r.email = append(r.email, strings.ToLower(pat))
		default:
			return nil, fmt.Errorf("notify pattern %q: want slack:<pattern> or email:<pattern>", p)
		}
	}
	return r, nil
}

// allows returns nil when every recipient n names matches a pattern of
// r (a nil r allows all), else EINVALID naming the first that does not.
func (r *Recipients) allows(n *askonce.Recipients) error {
	if r == nil || n == nil {
		return nil
	}
	if s := n.Slack; s != nil && !matchAny(r.slack, s.Conversation()) {
		return askonce.Errorf(askonce.EINVALID, "notify.slack %q is not among the recipients this API key may use", s.Conversation())
	}
	for i, a := range n.Email {
		if !matchAny(r.email, strings.ToLower(a)) {
			return askonce.Errorf(askonce.EINVALID, "notify.email[%d] %q is not among the recipients this API key may use", i, a)
		}
	}
	return nil
}

func matchAny(patterns []string, s string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, s); ok {
			return true
		}
	}
	return false
}
