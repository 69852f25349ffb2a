package askonce_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

// linkEngine is an engine on a real SQLite file whose LinkSecret is the
// database's, with the store's path.
func linkEngine(t *testing.T, interp askonce.Interpreter) (*askonce.Engine, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "askonce.db")
	st := openStore(t, path)
	return &askonce.Engine{Store: st, Interpreter: interp, LinkSecret: st.LinkSecret()}, path
}

// pendingJob creates a job whose question waits for an answer.
func pendingJob(t *testing.T, e *askonce.Engine) *askonce.Job {
	t.Helper()
	j := create(t, e, "hot frozen cheese")
	if j.Status != askonce.StatusPending {
		t.Fatalf("job %s is %s, want pending", j.ID, j.Status)
	}
	return j
}

// wantConflictWithJob checks that err is ECONFLICT carrying the job in the
// wanted status.
func wantConflictWithJob(t *testing.T, what string, err error, id string, status askonce.Status) {
	t.Helper()
	var ae *askonce.Error
	if !errors.As(err, &ae) || ae.Code != askonce.ECONFLICT {
		t.Fatalf("%s: err %v, want ECONFLICT", what, err)
	}
	if ae.Job == nil || ae.Job.ID != id || ae.Job.Status != status {
		t.Fatalf("%s: conflict carries job %+v, want job %s in status %s", what, ae.Job, id, status)
	}
}

func TestAnswerTokenIs256BitsAndStablePerJob(t *testing.T) {
	t.Parallel()
	e, _ := linkEngine(t, scripted(reply(askTemp, u1), reply(askTemp, u1)))
	a, b := pendingJob(t, e), pendingJob(t, e)
	tok := e.AnswerToken(a)
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(raw) != 32 {
		t.Fatalf("token %q: %d bytes, %v; want 256 bits of unpadded base64url", tok, len(raw), err)
	}
	stored, err := e.Get(ctx, "", a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if again := e.AnswerToken(stored); again != tok {
		t.Errorf("token of the re-read job %q, want the same %q", again, tok)
	}
	if other := e.AnswerToken(b); other == tok || other == "" {
		t.Errorf("two jobs: tokens %q and %q, want two different ones", tok, other)
	}
	if got := (&askonce.Engine{Store: e.Store}).AnswerToken(a); got != "" {
		t.Errorf("engine without a secret gives token %q, want none", got)
	}
	if got := e.AnswerURL("http://example.test/", a); got != "http://example.test/a/"+tok {
		t.Errorf("AnswerURL = %q", got)
	}
}

func TestAnswerTokenIsOnlyForPendingQuestions(t *testing.T) {
	t.Parallel()
	e, _ := linkEngine(t, scripted(reply(planRaw, u1), reply(askTemp, u1), reply(planRaw, u1)))
	planned := create(t, e, "make cheese")
	if tok := e.AnswerToken(planned); planned.Status != askonce.StatusSuccess || tok != "" {
		t.Errorf("planned job (%s): token %q, want none", planned.Status, tok)
	}
	j := pendingJob(t, e)
	j, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")})
	if err != nil {
		t.Fatal(err)
	}
	if tok := e.AnswerToken(j); tok != "" {
		t.Errorf("answered job (%s): token %q, want none", j.Status, tok)
	}
}

func TestAnswerLinkStoresOnlyItsHash(t *testing.T) {
	t.Parallel()
	e, path := linkEngine(t, scripted(reply(askTemp, u1)))
	j := pendingJob(t, e)
	tok := e.AnswerToken(j)
	if _, err := e.JobByAnswerToken(ctx, tok); err != nil {
		t.Fatalf("lookup: %v", err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var hash []byte
	var tenant, id string
	if err := db.QueryRow(`SELECT token_hash, tenant_id, job_id FROM answer_links`).Scan(&hash, &tenant, &id); err != nil {
		t.Fatalf("answer_links row: %v", err)
	}
	sum := sha256.Sum256([]byte(tok))
	if !bytes.Equal(hash, sum[:]) || tenant != j.TenantID || id != j.ID {
		t.Errorf("row (%x, %s, %s), want (sha256 of the token, %s, %s)", hash, tenant, id, j.TenantID, j.ID)
	}
	// Nowhere in the database file or its write-ahead log is the token.
	for _, f := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(tok)) {
			t.Errorf("%s holds the raw token", filepath.Base(f))
		}
		raw, _ := base64.RawURLEncoding.DecodeString(tok)
		if bytes.Contains(b, raw) {
			t.Errorf("%s holds the token's bytes", filepath.Base(f))
		}
	}
}

func TestAnswerTokenLookupOfUnknownOrMalformedTokenIsNotFound(t *testing.T) {
	t.Parallel()
	e, _ := linkEngine(t, scripted(reply(askTemp, u1)))
	tok := e.AnswerToken(pendingJob(t, e))
	flipped := []byte(tok)
	flipped[10] ^= 1
	for name, bad := range map[string]string{
		"empty":            "",
		"short":            "abc",
		"one char more":    tok + "A",
		"one char less":    tok[:len(tok)-1],
		"one char changed": string(flipped),
		"padded":           tok + "=",
		"not base64url":    strings.Repeat("*", len(tok)),
		"very long":        strings.Repeat(tok, 1000),
		"unknown token":    base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32)),
	} {
		_, err := e.JobByAnswerToken(ctx, bad)
		if askonce.ErrorCode(err) != askonce.ENOTFOUND {
			t.Errorf("%s: err %v, want ENOTFOUND", name, err)
		}
	}
}

func TestAnswerTokenCannotReachAnotherTenantsJobByForging(t *testing.T) {
	t.Parallel()
	e, path := linkEngine(t, scripted(reply(askTemp, u1)))
	j, err := e.Create(ctx, askonce.CreateRequest{TenantID: "victim", Goal: "hot frozen cheese"})
	if err != nil || j.Status != askonce.StatusPending {
		t.Fatalf("create: %v", err)
	}
	// Someone without the secret makes a token for the victim's job and
	// gets its hash into answer_links: the row alone opens nothing.
	m := hmac.New(sha256.New, []byte("a guessed secret"))
	m.Write([]byte("askonce-answer-link\x00victim\x00" + j.ID))
	forged := base64.RawURLEncoding.EncodeToString(m.Sum(nil))
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sum := sha256.Sum256([]byte(forged))
	if _, err := db.Exec(`INSERT INTO answer_links (token_hash, tenant_id, job_id, created_at) VALUES (?, 'victim', ?, 0)`, sum[:], j.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.JobByAnswerToken(ctx, forged); askonce.ErrorCode(err) != askonce.ENOTFOUND {
		t.Errorf("forged token: err %v, want ENOTFOUND", err)
	}
	if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, Token: forged, Answer: askonce.TextAnswer("hot"), Background: true}); askonce.ErrorCode(err) != askonce.ENOTFOUND {
		t.Errorf("answer with a forged token: err %v, want ENOTFOUND", err)
	}
	// An engine with another secret (a rotated one) cannot use the
	// genuine token either.
	rotated := &askonce.Engine{Store: e.Store, LinkSecret: bytes.Repeat([]byte{1}, 32)}
	if _, err := rotated.JobByAnswerToken(ctx, e.AnswerToken(j)); askonce.ErrorCode(err) != askonce.ENOTFOUND {
		t.Errorf("old token after rotation: err %v, want ENOTFOUND", err)
	}
	// The genuine token reaches the job, with its tenant.
	got, err := e.JobByAnswerToken(ctx, e.AnswerToken(j))
	if err != nil || got.ID != j.ID || got.TenantID != "victim" {
		t.Fatalf("genuine token: %+v, %v", got, err)
	}
}

func TestAnswerLinkIsDeadAfterAnswer(t *testing.T) {
	t.Parallel()
	e, _ := linkEngine(t, scripted(reply(askTemp, u1), reply(planRaw, u1)))
	j := pendingJob(t, e)
	tok := e.AnswerToken(j)
	if _, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, Token: tok, Answer: askonce.TextAnswer("not an option"), Background: true}); askonce.ErrorCode(err) != askonce.EINVALID {
		t.Fatalf("invalid answer: err %v, want EINVALID", err)
	}
	started, run, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, Token: tok, Answer: askonce.TextAnswer("hot"), Background: true})
	if err != nil {
		t.Fatalf("answer by token: %v", err)
	}
	if started.Status != askonce.StatusPlanning || started.Answer.String() != "hot" || started.AnswerSource != askonce.SourceUser {
		t.Fatalf("answered job: %s %q %s", started.Status, started.Answer, started.AnswerSource)
	}
	run.Wait(ctx)
	if done, err := run.Result(); err != nil || done.Status != askonce.StatusSuccess {
		t.Fatalf("planning after the answer: %+v, %v", done, err)
	}
	_, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, Token: tok, Answer: askonce.TextAnswer("frozen"), Background: true})
	wantConflictWithJob(t, "second answer", err, j.ID, askonce.StatusSuccess)
	_, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActDecline, Token: tok, Background: true})
	wantConflictWithJob(t, "decline after the answer", err, j.ID, askonce.StatusSuccess)
	// The lookup itself still finds the job, to say what happened.
	got, err := e.JobByAnswerToken(ctx, tok)
	if err != nil || got.Status != askonce.StatusSuccess || got.Answer.String() != "hot" {
		t.Fatalf("lookup of a used link: %+v, %v", got, err)
	}
}

func TestAnswerLinkIsDeadAfterCancel(t *testing.T) {
	t.Parallel()
	e, _ := linkEngine(t, scripted(reply(askTemp, u1)))
	j := pendingJob(t, e)
	tok := e.AnswerToken(j)
	c, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActCancel, Token: tok})
	if err != nil || c.Status != askonce.StatusCancelled {
		t.Fatalf("cancel by token: %+v, %v", c, err)
	}
	_, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, Token: tok, Answer: askonce.TextAnswer("hot"), Background: true})
	wantConflictWithJob(t, "answer after cancel", err, j.ID, askonce.StatusCancelled)
	_, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActCancel, Token: tok})
	wantConflictWithJob(t, "second cancel", err, j.ID, askonce.StatusCancelled)
}

// A used link stays dead while the job it answered still plans: a
// cancel or a decline through it is a conflict carrying the planning
// job, and changes nothing.
func TestAnswerLinkUsedIsAConflictForCancelAndDeclineWhileTheJobPlans(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	e, _ := linkEngine(t, scripted(reply(askTemp, u1), blocked(release, planRaw)))
	j := pendingJob(t, e)
	tok := e.AnswerToken(j)
	started, run, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, Token: tok, Answer: askonce.TextAnswer("hot"), Background: true})
	if err != nil || started.Status != askonce.StatusPlanning {
		t.Fatalf("answer by token: %+v, %v", started, err)
	}
	_, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActCancel, Token: tok})
	wantConflictWithJob(t, "cancel through the used link while planning", err, j.ID, askonce.StatusPlanning)
	_, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActDecline, Token: tok, Background: true})
	wantConflictWithJob(t, "decline through the used link while planning", err, j.ID, askonce.StatusPlanning)
	if got, err := e.Get(ctx, "", j.ID); err != nil || got.Status != askonce.StatusPlanning || got.Version != started.Version {
		t.Fatalf("after the refused calls: %+v, %v; want the answered job unchanged, still planning", got, err)
	}
	close(release)
	run.Wait(ctx)
	if done, err := run.Result(); err != nil || done.Status != askonce.StatusSuccess || done.Answer.String() != "hot" {
		t.Fatalf("planning after the answer: %+v, %v; want success with the answer hot", done, err)
	}
}

func TestAnswerLinkDeclineAppliesTheFallback(t *testing.T) {
	t.Parallel()
	e, _ := linkEngine(t, scripted(reply(askTemp, u1), reply(planRaw, u1)))
	j := pendingJob(t, e)
	d, run, err := e.Act(ctx, askonce.Act{Do: askonce.ActDecline, Token: e.AnswerToken(j), Background: true})
	if err != nil || d.Status != askonce.StatusPlanning || d.AnswerSource != askonce.SourceDefault {
		t.Fatalf("decline by token: %+v, %v", d, err)
	}
	run.Wait(ctx)
	if done, err := run.Result(); err != nil || done.Status != askonce.StatusSuccess || !done.FallbackUsed {
		t.Fatalf("planning after decline: %+v, %v", done, err)
	}
}

func TestAnswerLinkIsDeadAtExactlyExpiresAt(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	e, _ := linkEngine(t, scripted(reply(askTemp, u1), reply(planRaw, u1)))
	e.Now, e.QuestionTTL = func() time.Time { return now }, time.Hour
	j := pendingJob(t, e)
	tok := e.AnswerToken(j)
	// At ExpiresAt, before any sweep ran, the link is dead.
	now = j.Question.ExpiresAt.Add(0)
	_, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, Token: tok, Answer: askonce.TextAnswer("hot"), Background: true})
	wantConflictWithJob(t, "answer at ExpiresAt", err, j.ID, askonce.StatusPending)
	_, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActCancel, Token: tok})
	wantConflictWithJob(t, "cancel at ExpiresAt", err, j.ID, askonce.StatusPending)
	// A nanosecond before, it was alive.
	now = j.Question.ExpiresAt.Add(-time.Nanosecond)
	if _, run, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, Token: tok, Answer: askonce.TextAnswer("hot"), Background: true}); err != nil {
		t.Fatalf("answer just before ExpiresAt: %v", err)
	} else {
		run.Wait(ctx)
	}
}

func TestAnswerLinkIsDeadAfterTheSweepExpiredIt(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	e, _ := linkEngine(t, scripted(reply(askTemp, u1)))
	e.Now, e.QuestionTTL = func() time.Time { return now }, time.Hour
	j := pendingJob(t, e)
	tok := e.AnswerToken(j)
	now = now.Add(2 * time.Hour)
	if n, err := e.ExpireDue(ctx); n != 1 || err != nil {
		t.Fatalf("expire: %d, %v", n, err)
	}
	_, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, Token: tok, Answer: askonce.TextAnswer("hot"), Background: true})
	wantConflictWithJob(t, "answer after expiry", err, j.ID, askonce.StatusExpired)
}
