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
	eng := newEngine(t, nil)
	srv := httptest.NewServer(web.New(web.Config{Engine: eng}))
	t.Cleanup(func() { srv.Close(); eng.Drain(context.Background()) })
	return &site{srv: srv, engine: eng}
}

// newEngine is an engine on a real SQLite file in the test's temp dir,
// with interp (nil: the rules interpreter) and the database's own answer
// link secret.
func newEngine(t *testing.T, interp askonce.Interpreter) *askonce.Engine {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if interp == nil {
		r, err := rules.New(rules.Options{})
		if err != nil {
			t.Fatal(err)
		}
		interp = r
	}
	return &askonce.Engine{Store: st, Interpreter: interp, LinkSecret: st.LinkSecret()}
}

func testBrowserPagesLoadUnderTheirCSP(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	browserScript(t, s.srv.URL, "smoke")
}
