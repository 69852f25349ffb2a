package auth

import (
	"fmt"
	"path"
	"strings"

	"github.com/askonce/askonce"
)

// Recipients are the job recipients an API key may name: the notify=
// field of its keys file line,
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
		return nil, fmt.Errorf("field %q: want name=<key name> or notify=<pattern>,... (slack:<id pattern>, email:<address pattern>, or none)", field)
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

// allows returns nil when every recipient n names, in its steps too,
// matches a pattern of r (a nil r allows all), else EINVALID naming the
// first that does not.
func (r *Recipients) allows(n *askonce.Recipients) error {
	if r == nil || n == nil {
		return nil
	}
	if err := r.allowsAt("notify", n.Slack, n.Email); err != nil {
		return err
	}
	for i, s := range n.Steps {
		if err := r.allowsAt(fmt.Sprintf("notify.steps[%d]", i), s.Slack, s.Email); err != nil {
			return err
		}
	}
	return nil
}

func (r *Recipients) allowsAt(at string, s *askonce.SlackRecipient, email []string) error {
	if s != nil && !matchAny(r.slack, s.Conversation()) {
		return askonce.Errorf(askonce.EINVALID, "%s.slack %q is not among the recipients this API key may use", at, s.Conversation())
	}
	for i, a := range email {
		if !matchAny(r.email, strings.ToLower(a)) {
			return askonce.Errorf(askonce.EINVALID, "%s.email[%d] %q is not among the recipients this API key may use", at, i, a)
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
