package auth_test

import (
	"strings"
	"testing"

	"github.com/askonce/askonce/auth"
)

func TestSignInLinesPickTheTenant(t *testing.T) {
	t.Parallel()
	k, err := auth.LoadKeys(strings.NewReader(`
# who may sign in to the inbox
dom signin domain=example.com
grp signin group=ops
one signin email=Boss@Example.com
dom2 signin domain=@other.test
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		id   auth.Identity
		want string
	}{
		{"an exact address wins over its group and domain", auth.Identity{Email: "boss@example.COM", EmailVerified: true, Groups: []string{"ops"}}, "one"},
		{"a group wins over a domain", auth.Identity{Email: "ann@example.com", EmailVerified: true, Groups: []string{"ops"}}, "grp"},
		{"a domain, in any case", auth.Identity{Email: "ann@EXAMPLE.com", EmailVerified: true}, "dom"},
		{"a domain written with @", auth.Identity{Email: "ann@other.test", EmailVerified: true}, "dom2"},
		{"an unverified address counts for nothing", auth.Identity{Email: "boss@example.com"}, ""},
		{"a group needs no address", auth.Identity{Subject: "s", Groups: []string{"ops"}}, "grp"},
		{"a subdomain is another domain", auth.Identity{Email: "ann@mail.example.com", EmailVerified: true}, ""},
		{"a group is compared exactly", auth.Identity{Groups: []string{"Ops"}}, ""},
		{"nobody else", auth.Identity{Email: "eve@elsewhere.test", EmailVerified: true}, ""},
	} {
		got, ok := k.SignIn(c.id)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s: %q %v, want %q", c.name, got, ok, c.want)
		}
	}
	if !k.SignInGroups() || k.SignInRules() != 4 {
		t.Errorf("groups %v, rules %d; want true, 4", k.SignInGroups(), k.SignInRules())
	}
}

func TestSignInLinesThatAreWrongSayWhich(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]string{
		"t signin":                         "got 0 fields",
		"t signin email=nobody":            "not an email address",
		"t signin user=ann":                "want email=",
		"t signin domain=a@b":              "not a domain",
		"t signin group=":                  "want email=",
		"t signin email=a@b.c group=x":     "got 2 fields",
		"bad/tenant signin domain=example": "tenant",
	} {
		_, err := auth.LoadKeys(strings.NewReader(line + "\n"))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: %v, want line 1 saying %q", line, err, want)
		}
	}
}

func TestKeysFileWithOnlySignInLinesLoads(t *testing.T) {
	t.Parallel()
	k, err := auth.LoadKeys(strings.NewReader("t signin domain=example.com\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := k.Tenant("anything"); ok {
		t.Errorf("a file without keys accepted a key")
	}
}
