package web_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/oauth2-proxy/mockoidc"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/auth"
	"github.com/askonce/askonce/server"
	"github.com/askonce/askonce/web"
)

// The OpenID sign-in is tested against mockoidc, a real OpenID provider
// (discovery, authorization endpoint with PKCE, token endpoint, JWKS,
// RS256 ID tokens) on loopback. Its authorization endpoint signs in the
// next queued user without a form. A middleware on its token endpoint
// re-signs, with the provider's own key, the ID token of a few subjects
// to make the tokens a broken or hostile provider would issue.

const (
	aliceEmail = "alice@askonce.test"
	// Subjects whose ID tokens the provider's middleware spoils.
	subExpired   = "sub-expired"
	subOtherAud  = "sub-other-audience"
	subBadNonce  = "sub-bad-nonce"
	oidcKeysFile = "alpha signin email=" + aliceEmail + "\n" +
		"beta signin group=ops\n" +
		"alpha signin domain=alpha.test\n"
)

// oidcSite is the inbox and API with OpenID sign-in, and its provider.
type oidcSite struct {
	*inboxSite
	op   *mockoidc.MockOIDC
	logs *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newOIDCSite starts a provider and the site signing in with it. issuer,
// when not empty, replaces the provider's issuer URL in the site's
// configuration (a misconfigured or unreachable issuer).
func newOIDCSite(t *testing.T, issuer string) *oidcSite {
	t.Helper()
	op, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := op.AddMiddleware(spoilTokens(t, op)); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Start(ln, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { op.Shutdown() })
	if issuer == "" {
		issuer = op.Issuer()
	}

	eng := newEngine(t, nil)
	keys, err := auth.LoadKeys(strings.NewReader("alpha " + auth.HashKey(keyAlpha) + "\n" + oidcKeysFile))
	if err != nil {
		t.Fatal(err)
	}
	s := &oidcSite{inboxSite: &inboxSite{t: t, engine: eng, polled: make(chan struct{})}, op: op, logs: &syncBuffer{}}
	// The handler is whole before the server starts (its public URL is
	// the listener's, known before Start), so no request sees it built.
	mux := http.NewServeMux()
	s.srv = httptest.NewUnstartedServer(mux)
	publicURL := "http://" + s.srv.Listener.Addr().String()
	pages := web.New(web.Config{Engine: eng, Keys: keys, Logger: slog.New(slog.NewTextHandler(s.logs, nil)), OIDC: &web.OIDC{
		Issuer: issuer, ClientID: op.ClientID, ClientSecret: op.ClientSecret, PublicURL: publicURL,
		SessionKey: []byte("0123456789abcdef0123456789abcdef"),
	}})
	api := server.New(server.Config{Engine: eng, Keys: keys})
	for _, p := range web.Patterns {
		mux.Handle(p, pages)
	}
	mux.Handle("/", api)
	s.srv.Start()
	t.Cleanup(func() { s.srv.Close(); eng.Drain(context.Background()) })
	return s
}

// spoilTokens re-signs the ID tokens of subExpired (expired an hour
// ago), subOtherAud (issued to another client) and subBadNonce (another
// sign-in's nonce) with the provider's key.
func spoilTokens(t *testing.T, op *mockoidc.MockOIDC) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != mockoidc.TokenEndpoint {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			var tr map[string]any
			if rec.Code == http.StatusOK && json.Unmarshal(body, &tr) == nil {
				if raw, _ := tr["id_token"].(string); raw != "" {
					claims := jwt.MapClaims{}
					if _, _, err := jwt.NewParser().ParseUnverified(raw, claims); err == nil {
						spoilt := true
						switch claims["sub"] {
						case subExpired:
							claims["exp"] = time.Now().Add(-time.Hour).Unix()
							claims["iat"] = time.Now().Add(-2 * time.Hour).Unix()
							claims["nbf"] = claims["iat"]
						case subOtherAud:
							claims["aud"] = "another-application"
						case subBadNonce:
							claims["nonce"] = "a-nonce-of-another-sign-in"
						default:
							spoilt = false
						}
						if spoilt {
							signed, err := op.Keypair.SignJWT(claims)
							if err != nil {
								t.Errorf("re-sign the ID token: %v", err)
							}
							tr["id_token"] = signed
							body, _ = json.Marshal(tr)
						}
					}
				}
			}
			for k, v := range rec.Header() {
				if k != "Content-Length" {
					w.Header()[k] = v
				}
			}
			w.WriteHeader(rec.Code)
			w.Write(body)
		})
	}
}

// user queues the next person the provider signs in.
func (s *oidcSite) user(sub, email string, groups ...string) {
	s.op.QueueUser(&mockoidc.MockUser{Subject: sub, Email: email, EmailVerified: true, PreferredUsername: sub, Groups: groups})
}

// browser is a cookie-keeping client that follows redirects between the
// site and the provider, like a browser, and records where it went.
type browser struct {
	t      *testing.T
	c      *http.Client
	visits []string
}

func (s *oidcSite) browser() *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		s.t.Fatal(err)
	}
	b := &browser{t: s.t}
	b.c = &http.Client{Jar: jar, CheckRedirect: func(r *http.Request, via []*http.Request) error {
		b.visits = append(b.visits, r.URL.String())
		return nil
	}}
	return b
}

// get follows u to its last page and returns its status and body.
func (b *browser) get(u string) (int, string) {
	b.t.Helper()
	b.visits = b.visits[:0]
	resp, err := b.c.Get(u)
	if err != nil {
		b.t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// signIn opens the inbox and follows the sign-in through the provider.
func (b *browser) signIn(s *oidcSite) (int, string) {
	b.t.Helper()
	return b.get(s.srv.URL + "/ui")
}

// callback is the callback URL of the last sign-in b followed.
func (b *browser) callback() string {
	for _, v := range b.visits {
		if strings.Contains(v, "/ui/auth/callback") {
			return v
		}
	}
	b.t.Fatalf("no callback among %v", b.visits)
	return ""
}

func (b *browser) cookie(site, name string) *http.Cookie {
	u, _ := url.Parse(site + "/ui")
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func TestOIDCSignInOpensTheMappedTenantsInbox(t *testing.T) {
	t.Parallel()
	s := newOIDCSite(t, "")
	mine := s.create("alpha", "", askingGoal)
	theirs := s.create("beta", "", planningGoal)
	s.user("sub-alice", aliceEmail)
	b := s.browser()
	status, body := b.signIn(s)
	if status != http.StatusOK || !strings.Contains(body, mine.ID) || strings.Contains(body, theirs.ID) {
		t.Fatalf("after sign-in: %d, want the inbox of alpha with %s and not %s:\n%s", status, mine.ID, theirs.ID, body)
	}
	if !strings.Contains(body, aliceEmail) {
		t.Errorf("the inbox does not name who signed in:\n%s", body)
	}
	if len(b.visits) < 3 || !strings.HasPrefix(b.visits[1], s.op.AuthorizationEndpoint()) {
		t.Fatalf("the sign-in went %v, want /ui/login, the provider, the callback, /ui", b.visits)
	}
	auth, _ := url.Parse(b.visits[1])
	q := auth.Query()
	for _, p := range []string{"state", "nonce", "code_challenge"} {
		if len(q.Get(p)) < 43 {
			t.Errorf("the authorization request's %s is %q, want 256 random bits", p, q.Get(p))
		}
	}
	if q.Get("code_challenge_method") != "S256" || q.Get("redirect_uri") != s.srv.URL+"/ui/auth/callback" {
		t.Errorf("authorization request %v: want PKCE S256 and the callback under the public URL", q)
	}
}

func TestOIDCGroupAndDomainLinesPickTheTenant(t *testing.T) {
	t.Parallel()
	s := newOIDCSite(t, "")
	beta := s.create("beta", "", planningGoal)
	alpha := s.create("alpha", "", askingGoal)
	s.user("sub-bob", "bob@elsewhere.test", "staff", "ops")
	if _, body := s.browser().signIn(s); !strings.Contains(body, beta.ID) || strings.Contains(body, alpha.ID) {
		t.Errorf("a member of ops sees:\n%s\nwant beta's inbox", body)
	}
	s.user("sub-carol", "Carol@ALPHA.test")
	if _, body := s.browser().signIn(s); !strings.Contains(body, alpha.ID) || strings.Contains(body, beta.ID) {
		t.Errorf("carol@alpha.test sees:\n%s\nwant alpha's inbox", body)
	}
}

func TestOIDCUnverifiedEmailOpensNothing(t *testing.T) {
	t.Parallel()
	s := newOIDCSite(t, "")
	s.op.QueueUser(&mockoidc.MockUser{Subject: "sub-mallory", Email: aliceEmail, EmailVerified: false})
	status, body := s.browser().signIn(s)
	if status != http.StatusForbidden || !strings.Contains(body, "Not allowed") {
		t.Errorf("an unverified address of a mapped person: %d\n%s\nwant 403 Not allowed", status, body)
	}
}

func TestOIDCPersonOutsideTheMappingIsNotAllowed(t *testing.T) {
	t.Parallel()
	s := newOIDCSite(t, "")
	s.create("alpha", "", askingGoal)
	s.user("sub-eve", "eve@<b>elsewhere</b>.test")
	b := s.browser()
	status, body := b.signIn(s)
	if status != http.StatusForbidden || !strings.Contains(body, "Not allowed") || !strings.Contains(body, "eve@&lt;b&gt;elsewhere&lt;/b&gt;.test") {
		t.Fatalf("outsider: %d\n%s\nwant 403 Not allowed naming the address, escaped", status, body)
	}
	if b.cookie(s.srv.URL, "askonce_session") != nil {
		t.Errorf("an outsider got a session cookie")
	}
	if status, _ := b.get(s.srv.URL + "/ui/jobs/x"); status == http.StatusOK {
		t.Errorf("an outsider opened a job page")
	}
}

func TestOIDCBadTokensSignNobodyIn(t *testing.T) {
	t.Parallel()
	s := newOIDCSite(t, "")
	for _, c := range []struct{ sub, want string }{
		{subExpired, "expired"},
		{subOtherAud, "another application"},
		{subBadNonce, "nonce"},
	} {
		t.Run(c.sub, func(t *testing.T) {
			s.user(c.sub, aliceEmail)
			b := s.browser()
			status, body := b.signIn(s)
			if status != http.StatusBadRequest || !strings.Contains(body, c.want) {
				t.Errorf("%s: %d\n%s\nwant 400 saying %q", c.sub, status, body, c.want)
			}
			if b.cookie(s.srv.URL, "askonce_session") != nil {
				t.Errorf("%s: a session cookie was set", c.sub)
			}
		})
	}
}

func TestOIDCWrongStateAndReplayedCallbackAreRefused(t *testing.T) {
	t.Parallel()
	s := newOIDCSite(t, "")
	s.user("sub-alice", aliceEmail)
	b := s.browser()
	if status, _ := b.signIn(s); status != http.StatusOK {
		t.Fatalf("sign-in: %d", status)
	}
	cb := b.callback()
	// The same callback again: the sign-in cookie it needs is gone.
	other := s.browser()
	if status, body := other.get(cb); status != http.StatusBadRequest || !strings.Contains(body, "already used") {
		t.Errorf("replayed callback: %d\n%s", status, body)
	}
	if other.cookie(s.srv.URL, "askonce_session") != nil {
		t.Errorf("a replayed callback signed a browser in")
	}
	if status, body := b.get(cb); status != http.StatusBadRequest || !strings.Contains(body, "already used") {
		t.Errorf("the callback replayed in its own browser: %d\n%s", status, body)
	}
	// A sign-in started here, finished with another state.
	c := s.browser()
	c.c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.c.Get(s.srv.URL + "/ui/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || !strings.HasPrefix(resp.Header.Get("Location"), s.op.AuthorizationEndpoint()) {
		t.Fatalf("/ui/login: %d to %q, want 302 to the provider", resp.StatusCode, resp.Header.Get("Location"))
	}
	if status, body := c.get(s.srv.URL + "/ui/auth/callback?code=x&state=forged"); status != http.StatusBadRequest || !strings.Contains(body, "state does not match") {
		t.Errorf("wrong state: %d\n%s", status, body)
	}
}

// aliceSignedIn starts a site with a pending job of alpha and a browser
// that alice has signed in with.
func aliceSignedIn(t *testing.T) (*oidcSite, *browser, *askonce.Job) {
	t.Helper()
	s := newOIDCSite(t, "")
	j := s.create("alpha", "", askingGoal)
	s.user("sub-alice", aliceEmail)
	b := s.browser()
	if status, body := b.signIn(s); status != http.StatusOK {
		t.Fatalf("alice's sign-in: %d\n%s", status, body)
	}
	return s, b, j
}

// post sends a form from the site's own pages (its Origin) with b's
// cookies, following redirects, and returns the last status and body.
func (b *browser) post(s *oidcSite, path string, form url.Values) (int, string) {
	b.t.Helper()
	req, _ := http.NewRequest("POST", s.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", s.srv.URL)
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestOIDCTamperedSessionCookieIsNoSession(t *testing.T) {
	t.Parallel()
	s, b, j := aliceSignedIn(t)
	sess := b.cookie(s.srv.URL, "askonce_session")
	if sess == nil {
		t.Fatal("no session after sign-in")
	}
	payload, sig, _ := strings.Cut(sess.Value, ".")
	raw, _ := jsonPayload(payload)
	forged := strings.Replace(raw, `"t":"alpha"`, `"t":"beta"`, 1)
	for name, v := range map[string]string{
		"another tenant, old signature": encodePayload(forged) + "." + sig,
		"no signature":                  payload,
		"garbage":                       "%%%.###",
		"signature of another payload":  encodePayload(forged) + "." + strings.Repeat("A", len(sig)),
	} {
		req, _ := http.NewRequest("GET", s.srv.URL+"/ui/jobs/"+j.ID, nil)
		req.AddCookie(&http.Cookie{Name: "askonce_session", Value: v})
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/login" {
			t.Errorf("%s: %d %q, want 303 to /ui/login", name, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}

func TestOIDCSignOutEndsTheSession(t *testing.T) {
	t.Parallel()
	s, b, _ := aliceSignedIn(t)
	_, body := b.get(s.srv.URL + "/ui")
	csrf := between(body, `name="csrf" value="`, `"`)
	if status, out := b.post(s, "/ui/logout", url.Values{"csrf": {"forged"}}); status != http.StatusForbidden || b.cookie(s.srv.URL, "askonce_session") == nil {
		t.Fatalf("sign-out with a forged token: %d\n%s", status, out)
	}
	if status, out := b.post(s, "/ui/logout", url.Values{"csrf": {csrf}}); status != http.StatusOK || !strings.Contains(out, "signed out") {
		t.Fatalf("sign-out: %d\n%s", status, out)
	}
	if b.cookie(s.srv.URL, "askonce_session") != nil {
		t.Errorf("the session cookie outlived sign-out")
	}
}

func TestOIDCProviderDownLeavesAPIKeysWorking(t *testing.T) {
	t.Parallel()
	// An issuer where nothing listens.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String() + "/oidc"
	ln.Close()
	s := newOIDCSite(t, down)
	status, body := s.browser().signIn(s)
	if status != http.StatusBadGateway || !strings.Contains(body, "unavailable") {
		t.Errorf("provider down: %d\n%s\nwant 502 saying sign-in is unavailable", status, body)
	}
	if !strings.Contains(s.logs.String(), "the OpenID provider failed") {
		t.Errorf("no log line says the provider failed:\n%s", s.logs.String())
	}
	req, _ := http.NewRequest("GET", s.srv.URL+"/jobs", nil)
	req.Header.Set("Authorization", "Bearer "+keyAlpha)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /jobs with an API key while the provider is down: %d, want 200", resp.StatusCode)
	}
}

func TestOIDCMisconfiguredIssuerSaysSo(t *testing.T) {
	t.Parallel()
	s := newOIDCSite(t, "")
	// The provider's address without its issuer path: discovery 404s.
	t.Run("no discovery", func(t *testing.T) {
		m := newOIDCSite(t, s.op.Addr())
		status, body := m.browser().signIn(m)
		if status != http.StatusBadGateway || !strings.Contains(m.logs.String(), "404") {
			t.Errorf("%d\n%s\nlog:\n%s", status, body, m.logs.String())
		}
	})
	// An issuer URL that discovery says is someone else's.
	t.Run("issuer mismatch", func(t *testing.T) {
		m := newOIDCSite(t, strings.Replace(s.op.Issuer(), "127.0.0.1", "localhost", 1))
		status, _ := m.browser().signIn(m)
		if status != http.StatusBadGateway || !strings.Contains(m.logs.String(), "issuer") {
			t.Errorf("%d, log:\n%s", status, m.logs.String())
		}
	})
}

// Rule 15, who answered: a decline given on the answer page while signed
// in with an OpenID provider records the person (verified address and
// subject) as answeredBy: on the job, in its answered event, in the API's
// job and on the job page.
func TestRule15_SignedInInboxUserIsRecordedAsAnsweredBy(t *testing.T) {
	t.Parallel()
	s, b, j := aliceSignedIn(t)
	_, page := b.get(s.srv.URL + "/ui/jobs/" + j.ID)
	link := between(page, `href="/a/`, `"`)
	if link == "" {
		t.Fatalf("no answer link on the job page:\n%s", page)
	}
	b.post(s, "/a/"+link, url.Values{"action": {"decline"}})
	got, err := s.engine.Get(context.Background(), "alpha", j.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := aliceEmail + " (oidc sub-alice)"
	if got.AnsweredBy != want || got.AnsweredVia != askonce.ViaWeb {
		t.Errorf("answered via %q by %q, want web by %q", got.AnsweredVia, got.AnsweredBy, want)
	}
	evs, err := s.engine.Events(context.Background(), "alpha", j.ID, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(evs, func(e askonce.Event) bool { return e.Type == askonce.EventAnswered })
	if i < 0 || !strings.Contains(string(evs[i].Data), `"answeredBy":"`+want+`"`) {
		t.Errorf("no answered event answered by %q among %d events", want, len(evs))
	}
	req, _ := http.NewRequest("GET", s.srv.URL+"/jobs/"+j.ID, nil)
	req.Header.Set("Authorization", "Bearer "+keyAlpha)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var view struct {
		AnsweredBy string `json:"answeredBy"`
	}
	json.NewDecoder(resp.Body).Decode(&view)
	resp.Body.Close()
	if view.AnsweredBy != want {
		t.Errorf("GET /jobs/{id}: answeredBy %q, want %q", view.AnsweredBy, want)
	}
	if _, page := b.get(s.srv.URL + "/ui/jobs/" + j.ID); !strings.Contains(page, "alice@askonce.test (oidc sub-alice)") {
		t.Errorf("the job page does not show who answered:\n%s", page)
	}
}

func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, to)
	return v
}

func jsonPayload(p string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(p)
	return string(b), err
}

func encodePayload(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func testBrowserOIDCSignIn(t *testing.T) {
	t.Parallel()
	requireBrowser(t)
	s := newOIDCSite(t, "")
	j := s.create("alpha", "", askingGoal)
	other := s.create("alpha", "", askingGoal)
	s.user("sub-eve", "eve@elsewhere.test")
	s.user(subExpired, aliceEmail)
	s.user("sub-alice", aliceEmail)
	// Another site (localhost is not 127.0.0.1's site) whose pages post
	// forms to the inbox as soon as they load.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		action, fields := s.engine.AnswerURL(s.srv.URL, other), `<input name="action" value="decline">`
		if r.URL.Path == "/cancel" {
			action, fields = s.srv.URL+"/ui/jobs/"+other.ID+"/cancel", ""
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><form method="post" action="`+action+`">`+fields+`</form><script>document.forms[0].submit()</script>`)
	}))
	t.Cleanup(evil.Close)
	evilURL := strings.Replace(evil.URL, "127.0.0.1", "localhost", 1)
	browserScript(t, s.srv.URL, "oidc_signin",
		"AUTHORIZE="+s.op.AuthorizationEndpoint(), "JOB="+j.ID, "OTHER_JOB="+other.ID,
		"EVIL_ANSWER="+evilURL+"/answer", "EVIL_CANCEL="+evilURL+"/cancel",
		"OUTSIDER=eve@elsewhere.test", "EMAIL="+aliceEmail, "ANSWERED_BY="+aliceEmail+" (oidc sub-alice)")
	if got, err := s.engine.Get(context.Background(), "alpha", other.ID); err != nil || got.Status != askonce.StatusPending {
		t.Errorf("the job the other site posted to: %v %v, want pending", got.Status, err)
	}
}

// A job that names who may answer holds a signed-in inbox user to that
// list by the address the provider verified: someone else's answer is
// refused and recorded, and the question still waits; a listed person's
// answer is taken.
func TestRule12_SignedInInboxUserOutsideTheAnswerersIsRefused(t *testing.T) {
	t.Parallel()
	s := newOIDCSite(t, "")
	s.user("sub-alice", aliceEmail)
	b := s.browser()
	if status, body := b.signIn(s); status != http.StatusOK {
		t.Fatalf("alice's sign-in: %d\n%s", status, body)
	}
	create := func(answerer string) *askonce.Job {
		j, err := s.engine.Create(context.Background(), askonce.CreateRequest{TenantID: "alpha", Goal: askingGoal,
			Notify: &askonce.Recipients{Email: []string{answerer}, Answerers: &askonce.Answerers{Email: []string{answerer}}}})
		if err != nil || j.Status != askonce.StatusPending {
			t.Fatalf("create: %+v, %v", j, err)
		}
		return j
	}
	link := func(j *askonce.Job) string {
		_, page := b.get(s.srv.URL + "/ui/jobs/" + j.ID)
		l := between(page, `href="/a/`, `"`)
		if l == "" {
			t.Fatalf("no answer link on the job page:\n%s", page)
		}
		return "/a/" + l
	}

	bobs := create("bob@askonce.test")
	status, body := b.post(s, link(bobs), url.Values{"action": {"decline"}})
	if status != http.StatusForbidden || !strings.Contains(body, "your answer was not taken") {
		t.Fatalf("alice declining bob's question: %d\n%s; want 403 saying it was not taken", status, body)
	}
	got, err := s.engine.Get(context.Background(), "alpha", bobs.ID)
	if err != nil || got.Status != askonce.StatusPending {
		t.Fatalf("after alice's refused answer bob's job is %+v, %v; want still pending", got, err)
	}
	evs, err := s.engine.Events(context.Background(), "alpha", bobs.ID, 0, 100)
	if err != nil || len(evs) == 0 || evs[len(evs)-1].Type != askonce.EventAnswerRefused || !strings.Contains(string(evs[len(evs)-1].Data), aliceEmail) {
		t.Fatalf("bob's job's events end %+v, %v; want answer_refused naming alice", evs, err)
	}

	alices := create(strings.ToUpper(aliceEmail))
	b.post(s, link(alices), url.Values{"action": {"decline"}})
	got, err = s.engine.Get(context.Background(), "alpha", alices.ID)
	if err != nil || got.Status == askonce.StatusPending || got.AnsweredBy != aliceEmail+" (oidc sub-alice)" {
		t.Fatalf("alice declining her own question: %+v, %v; want it settled by her", got, err)
	}
}
