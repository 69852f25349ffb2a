package auth

import (
	"fmt"
	"slices"
	"strings"
)

// Who may sign in to the inbox with an OpenID provider (serve's
// --oidc-issuer), and which tenant each person sees, is part of the keys
// file: lines whose second field is the word signin,
//
//	<tenant> signin email=<address>
//	<tenant> signin group=<group claim value>
//	<tenant> signin domain=<email domain>
//
// An exact address wins over a group, a group over a domain; among lines
// of one kind the first in the file wins. Addresses and domains are
// compared without regard to case and count only when the provider says
// the address is verified (email_verified is true); groups are the
// values of the ID token's groups claim, compared exactly. Nobody the
// lines do not name gets in.

// signinRule is one signin line.
type signinRule struct {
	tenant string
	kind   string // "email", "group" or "domain"
	value  string
}

// signinKinds are the rule kinds in the order they win.
var signinKinds = []string{"email", "group", "domain"}

// Identity is what a verified ID token says about the person signing in.
type Identity struct {
	Subject       string
	Email         string
	EmailVerified bool
	Groups        []string
}

// parseSignin reads the fields after "<tenant> signin".
func parseSignin(tenant string, fields []string) (signinRule, error) {
	if len(fields) != 1 {
		return signinRule{}, fmt.Errorf("want '<tenant> signin email=<address>|group=<group>|domain=<domain>', got %d fields after signin", len(fields))
	}
	kind, value, ok := strings.Cut(fields[0], "=")
	if !ok || value == "" || !slices.Contains(signinKinds, kind) {
		return signinRule{}, fmt.Errorf("signin %q: want email=<address>, group=<group> or domain=<domain>", fields[0])
	}
	switch kind {
	case "email":
		if at := strings.IndexByte(value, '@'); at <= 0 || at == len(value)-1 {
			return signinRule{}, fmt.Errorf("signin email=%q is not an email address", value)
		}
		value = strings.ToLower(value)
	case "domain":
		value = strings.ToLower(strings.TrimPrefix(value, "@"))
		if value == "" || strings.ContainsAny(value, "@/") {
			return signinRule{}, fmt.Errorf("signin domain=%q is not a domain (example.com)", fields[0][len("domain="):])
		}
	}
	return signinRule{tenant: tenant, kind: kind, value: value}, nil
}

// SignIn returns the tenant id may see, by the keys file's signin lines,
// or false when they let id in nowhere.
func (k *Keys) SignIn(id Identity) (tenant string, ok bool) {
	if k == nil {
		return "", false
	}
	email := ""
	domain := ""
	if id.EmailVerified {
		email = strings.ToLower(id.Email)
		if at := strings.LastIndexByte(email, '@'); at > 0 {
			domain = email[at+1:]
		} else {
			email = ""
		}
	}
	for _, kind := range signinKinds {
		for _, r := range k.signins {
			if r.kind != kind {
				continue
			}
			switch {
			case kind == "email" && email != "" && r.value == email,
				kind == "domain" && domain != "" && r.value == domain,
				kind == "group" && slices.Contains(id.Groups, r.value):
				return r.tenant, true
			}
		}
	}
	return "", false
}

// SignInGroups reports whether any signin line names a group: the
// sign-in then asks the provider for the groups scope.
func (k *Keys) SignInGroups() bool {
	for _, r := range k.signinRules() {
		if r.kind == "group" {
			return true
		}
	}
	return false
}

// SignInRules returns how many signin lines the file has.
func (k *Keys) SignInRules() int { return len(k.signinRules()) }

func (k *Keys) signinRules() []signinRule {
	if k == nil {
		return nil
	}
	return k.signins
}
