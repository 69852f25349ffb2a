package main_test

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// browserTestDir is web/browsertest, from this package's directory: the
// web package's browser scripts (playwright-core driving Debian's
// chromium).
var browserTestDir = filepath.Join("..", "..", "web", "browsertest")

// requireChromium skips the test when node, /usr/bin/chromium or
// web/browsertest's playwright-core is missing, except in CI (CI set),
// where that is a failure: .ci/run installs them. (web/browser_test.go's
// requireBrowser, from here.)
func requireChromium(t *testing.T) string {
	t.Helper()
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node"
	} else if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		missing = "/usr/bin/chromium (apt-get install chromium)"
	} else if _, err := os.Stat(filepath.Join(browserTestDir, "node_modules", "playwright-core")); err != nil {
		missing = "playwright-core (npm ci in web/browsertest)"
	}
	if missing != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("the browser tests need %s; .ci/run installs it", missing)
		}
		t.Skipf("skipping the browser test: %s is not installed (.ci/run installs it; CI never skips)", missing)
	}
	dir, err := filepath.Abs(browserTestDir)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// The preselected option link of a delivered question mail, opened in
// Chromium: the page shows the option chosen, and one click on its
// button answers with it (web/browsertest/answer_choice.mjs). The job
// records the answer as from the email link, and the outcome arrives as
// a reply to the question.
func TestE2E_EmailOptionLinkAnswersAfterOneClickInChromium(t *testing.T) {
	t.Parallel()
	dir := requireChromium(t)
	mb := newMailbox(t)
	in := start(t, []string{"ASKONCE_SMTP_URL=" + smtpURL(mb.addr)},
		"--db", filepath.Join(t.TempDir(), "a.db"), "--email-from", "askonce@example.com", "--delivery-backoff", "50ms")
	r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese", "notify": map[string]any{"email": []string{"ann@example.com"}}})
	id := str(r.body, "jobId")
	if r.status != 201 || str(r.body, "status") != "pending" {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	eventually(t, "the question mail", func() bool { return len(mb.to(t, "ann@example.com", "Question:")) == 1 })
	q := mb.to(t, "ann@example.com", "Question:")[0]
	m := regexp.MustCompile(`<a href="([^"]+)">frozen</a>`).FindStringSubmatch(q.html)
	if m == nil {
		t.Fatalf("the HTML part has no link of the option frozen:\n%s", q.html)
	}
	link, err := url.Parse(strings.ReplaceAll(m[1], "&amp;", "&"))
	if err != nil || link.Query().Get("via") != "email-link" {
		t.Fatalf("the option link %q (%v); want an answer link from the email", m[1], err)
	}

	cmd := exec.Command("node", filepath.Join(dir, "answer_choice.mjs"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "BASE_URL="+link.Scheme+"://"+link.Host, "LINK="+link.RequestURI())
	done := make(chan error, 1)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("answer_choice.mjs ran past 90s:\n%s", out.String())
	}
	if err != nil {
		t.Fatalf("answer_choice.mjs: %v\n%s", err, out.String())
	}

	j := in.do("GET", "/jobs/"+id, nil)
	if str(j.body, "clarificationAnswer") != "frozen" || str(j.body, "answeredVia") != "email-link" {
		t.Fatalf("after the click: answer %q via %q; want frozen via email-link\n%s", str(j.body, "clarificationAnswer"), str(j.body, "answeredVia"), j.raw)
	}
	if ev := in.do("GET", "/jobs/"+id+"/events", nil); strings.Count(string(ev.raw), `"type":"answered"`) != 1 {
		t.Errorf("want one answered event:\n%s", ev.raw)
	}
	eventually(t, "the outcome as a reply", func() bool { return len(mb.to(t, "ann@example.com", "Re: Question:")) == 1 })
	reply := mb.to(t, "ann@example.com", "Re: Question:")[0]
	if got, want := reply.header.Get("In-Reply-To"), q.header.Get("Message-Id"); got == "" || got != want {
		t.Errorf("In-Reply-To %q; want the question's Message-ID %q", got, want)
	}
	if !strings.Contains(reply.text, "Answered: “frozen” (via email-link)") || !strings.Contains(reply.text, "Planned:") {
		t.Errorf("the reply lacks the answer or the plan:\n%s", reply.text)
	}
}
