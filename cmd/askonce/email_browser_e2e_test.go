package main_test

import (
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/askonce/askonce/internal/chromium"
)

// browserTestDir is web/browsertest, from this package's directory: the
// web package's browser scripts.
var browserTestDir = filepath.Join("..", "..", "web", "browsertest")

// The preselected option link of a delivered question mail, opened in
// Chromium: the page shows the option chosen, and one click on its
// button answers with it (web/browsertest/answer_choice.mjs). The job
// records the answer as from the email link, and the outcome arrives as
// a reply to the question.
func emailOptionLinkAnswersAfterOneClickInChromium(t *testing.T) {
	t.Parallel()
	chromium.Require(t, browserTestDir)
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

	chromium.Run(t, browserTestDir, "answer_choice", "BASE_URL="+link.Scheme+"://"+link.Host, "LINK="+link.RequestURI())

	j := in.do("GET", "/jobs/"+id, nil)
	if str(j.body, "clarificationAnswer") != "frozen" || str(j.body, "answeredVia") != "email-link" || str(j.body, "answeredBy") != "ann@example.com" {
		t.Fatalf("after the click: answer %q via %q; want frozen via email-link by ann@example.com\n%s", str(j.body, "clarificationAnswer"), str(j.body, "answeredVia"), j.raw)
	}
	if ev := in.do("GET", "/jobs/"+id+"/events", nil); strings.Count(string(ev.raw), `"type":"answered"`) != 1 {
		t.Errorf("want one answered event:\n%s", ev.raw)
	}
	eventually(t, "the outcome as a reply", func() bool { return len(mb.to(t, "ann@example.com", "Re: Question:")) == 1 })
	reply := mb.to(t, "ann@example.com", "Re: Question:")[0]
	if got, want := reply.header.Get("In-Reply-To"), q.header.Get("Message-Id"); got == "" || got != want {
		t.Errorf("In-Reply-To %q; want the question's Message-ID %q", got, want)
	}
	if !strings.Contains(reply.text, "Answered: “frozen” (via email-link, by ann@example.com)") || !strings.Contains(reply.text, "Planned:") {
		t.Errorf("the reply lacks the answer or the plan:\n%s", reply.text)
	}
}
