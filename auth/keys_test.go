package auth_test

import (
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/auth"
)

func TestHashKey_IsSHA256Hex(t *testing.T) {
	t.Parallel()
	if got := auth.HashKey("abc"); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("HashKey(abc) = %s", got)
	}
}

func TestLoadKeys(t *testing.T) {
	t.Parallel()
	k, err := auth.LoadKeys(strings.NewReader("# tenant sha256\n\nacme " + auth.HashKey("key-a") + "\n  globex\t" + strings.ToUpper(auth.HashKey("key-b")) + "  \nacme " + auth.HashKey("key-a2") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"key-a": "acme", "key-a2": "acme", "key-b": "globex"} {
		if got, ok := k.Tenant(key); !ok || got != want {
			t.Errorf("Tenant(%s) = %q, %v; want %q", key, got, ok, want)
		}
	}
	if _, ok := k.Tenant("key-c"); ok || k.Len() != 3 {
		t.Errorf("unknown key accepted, or Len %d", k.Len())
	}
	for _, c := range []struct{ name, file, msg string }{
		{"Empty", "# nothing\n", "no keys"},
		{"OneField", "acme\n", "line 1: want '<tenant> <sha256-hex> [name=...] [notify=...]'"},
		{"FieldNeitherNameNorNotify", "acme " + auth.HashKey("x") + " extra\n", `field "extra": want name=<key name> or notify=`},
		{"UnknownFourthField", "acme " + auth.HashKey("x") + " notify=none extra\n", `field "extra"`},
		{"FiveFields", "acme " + auth.HashKey("x") + " name=a notify=none extra\n", "5 fields"},
		{"NameTwice", "acme " + auth.HashKey("x") + " name=a name=b\n", "name= is given twice"},
		{"NotifyTwice", "acme " + auth.HashKey("x") + " notify=none notify=email:*\n", "notify= is given twice"},
		{"BadName", "acme " + auth.HashKey("x") + " name=ci/bot\n", `key name "ci/bot"`},
		{"EmptyName", "acme " + auth.HashKey("x") + " name=\n", `key name ""`},
		{"UnknownNotifyKind", "acme " + auth.HashKey("x") + " notify=sms:*\n", `notify pattern "sms:*"`},
		{"NotHex", "acme xyz\n", "not a SHA-256"},
		{"ShortHash", "acme abcd\n", "not a SHA-256"},
		{"BadTenant", "ac/me " + auth.HashKey("x") + "\n", `tenant "ac/me"`},
		{"DuplicateKey", "a " + auth.HashKey("x") + "\nb " + auth.HashKey("x") + "\n", "line 2: the same key is already on line 1"},
	} {
		if _, err := auth.LoadKeys(strings.NewReader(c.file)); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v; want one containing %q", c.name, err, c.msg)
		}
	}
}

// A keys file line may name its key, before or after notify=; old lines
// (tenant and hash, with or without notify=) stay valid and unnamed.
func TestLoadKeys_NameFieldNamesTheKeyAndOldLinesStayValid(t *testing.T) {
	t.Parallel()
	k, err := auth.LoadKeys(strings.NewReader("acme " + auth.HashKey("k1") + " name=ci-bot\n" +
		"acme " + auth.HashKey("k2") + " notify=email:*@acme.test name=alice.laptop\n" +
		"acme " + auth.HashKey("k3") + " name=ops notify=none\n" +
		"acme " + auth.HashKey("k4") + " notify=none\n" +
		"globex " + auth.HashKey("k5") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"k1": "ci-bot", "k2": "alice.laptop", "k3": "ops", "k4": "", "k5": ""} {
		c, ok := k.Caller(key)
		if !ok || c.Name != want {
			t.Errorf("Caller(%s) = %+v, %v; want name %q", key, c, ok, want)
		}
	}
	// The recipients restriction comes along with the name.
	c, _ := k.Caller("k2")
	if err := c.AllowRecipients(&askonce.Recipients{Email: []string{"x@evil.test"}}); err == nil {
		t.Error("k2 may name x@evil.test, but its notify= allows *@acme.test only")
	}
	if err := c.AllowRecipients(&askonce.Recipients{Email: []string{"x@acme.test"}}); err != nil {
		t.Errorf("k2 may not name x@acme.test: %v", err)
	}
	if c, _ := k.Caller("k5"); c.AllowRecipients(&askonce.Recipients{Email: []string{"x@evil.test"}}) != nil {
		t.Error("a key without notify= is restricted")
	}
}

// KeyBits bounds what a key can carry by its alphabet: MinKeyBits takes 32
// hex digits or 22 characters of base64, and NewKey carries 256.
func TestKeyBitsIsLengthTimesTheBitsOfItsAlphabet(t *testing.T) {
	for _, c := range []struct {
		key   string
		short bool
	}{
		{strings.Repeat("a", 31), true}, // hex: 124 bits
		{strings.Repeat("a", 32), false},
		{strings.Repeat("7", 38), true}, // digits: 126 bits
		{"Zm9vYmFyYmF6cXV4cXV1e", true}, // 21 letters and digits: 125 bits
		{"Zm9v-mFyYmF6cXV4cXV1eA", false},
		{"s3cret pass", true}, // printable ASCII: 72 bits
		{auth.NewKey(), false},
	} {
		if got := auth.KeyBits(c.key) < auth.MinKeyBits; got != c.short {
			t.Errorf("KeyBits(%q) = %.1f: short %v, want %v", c.key, auth.KeyBits(c.key), got, c.short)
		}
	}
	if a, b := auth.NewKey(), auth.NewKey(); a == b || len(a) != 43 {
		t.Errorf("NewKey: %q and %q; want two different 43-character keys", a, b)
	}
}
