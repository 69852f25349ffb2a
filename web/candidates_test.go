package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// The job page lists the first ten of a job's candidates as text, hostile
// markup escaped, and how many there are in all; a job without them has
// no such row.
func testInboxJobPageShowsCandidatesEscapedAndCounted(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, false, false)
	names := []string{`<script>alert("x")</script>`, "black pepper"}
	for i := range 10 {
		names = append(names, fmt.Sprintf("table %d", i))
	}
	j, err := s.engine.Create(context.Background(), askonce.CreateRequest{Goal: planningGoal, Candidates: names})
	if err != nil {
		t.Fatal(err)
	}
	r := s.get("/ui/jobs/" + j.ID)
	wantStatus(t, r, http.StatusOK)
	if strings.Contains(r.body, "<script>alert") {
		t.Fatalf("the candidate's markup is in the page:\n%s", r.body)
	}
	for _, want := range []string{
		`<dt>Candidates</dt>`,
		`<span class="candidate">&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;</span>, <span class="candidate">black pepper</span>`,
		`<span class="candidate">table 7</span> <span class="muted">… 12 in all</span>`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("job page lacks %s:\n%s", want, r.body)
		}
	}
	if strings.Contains(r.body, "table 8") {
		t.Errorf("job page lists more than ten candidates")
	}
	bare := s.create("", "", planningGoal)
	if r := s.get("/ui/jobs/" + bare.ID); strings.Contains(r.body, "Candidates") {
		t.Errorf("a job without candidates shows the row")
	}
}
