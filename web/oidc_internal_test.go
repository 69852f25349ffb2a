package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/askonce/askonce/auth"
)

// Behind a proxy that ends TLS the request is plain HTTP, but the public
// URL says https: the sign-in's cookies are Secure and the callback is
// under the public URL.
func TestOIDCCookiesAreSecureWhenThePublicURLIsHTTPS(t *testing.T) {
	t.Parallel()
	op, err := mockoidc.Run()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { op.Shutdown() })
	keys, err := auth.LoadKeys(strings.NewReader("alpha signin domain=alpha.test\n"))
	if err != nil {
		t.Fatal(err)
	}
	h := New(Config{Engine: engineFor(t), Keys: keys, OIDC: &OIDC{
		Issuer: op.Issuer(), ClientID: op.ClientID, ClientSecret: op.ClientSecret,
		PublicURL: "https://askonce.example.com/", SessionKey: make([]byte, 32),
	}})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "http://askonce.example.com/ui/login", nil))
	if rec.Code != http.StatusFound {
		t.Fatalf("/ui/login: %d %s", rec.Code, rec.Body)
	}
	loc, err := url.Parse(rec.Header().Get("Location"))
	if err != nil || loc.Query().Get("redirect_uri") != "https://askonce.example.com/ui/auth/callback" {
		t.Errorf("sent to %q, want the callback under the public URL", rec.Header().Get("Location"))
	}
	c := rec.Result().Cookies()
	if len(c) != 1 || c[0].Name != oidcCookie || !c[0].Secure || !c[0].HttpOnly || c[0].SameSite != http.SameSiteLaxMode {
		t.Errorf("cookies %+v, want one Secure HttpOnly SameSite=Lax %s", c, oidcCookie)
	}
}
