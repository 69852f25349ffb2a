package web_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/sqlite"
	"github.com/askonce/askonce/web"
)

// site is the pages on a real loopback listener, a real SQLite file and
// the rules interpreter.
type site struct {
	srv    *httptest.Server
	engine *askonce.Engine
}

func newSite(t *testing.T) *site {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	r, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng := &askonce.Engine{Store: st, Interpreter: r}
	srv := httptest.NewServer(web.New(web.Config{Engine: eng}))
	t.Cleanup(func() { srv.Close(); eng.Drain(context.Background()) })
	return &site{srv: srv, engine: eng}
}

func TestBrowser_PagesLoadUnderTheirCSP(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	browserScript(t, s.srv.URL, "smoke")
}
