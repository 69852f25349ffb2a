package askonce

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strings"
)

// Answer links: every pending question has a capability URL, /a/{token},
// that answers it without an API key, like a password-reset link.
//
// The token is not random per render: it is the HMAC-SHA256, under the
// engine's LinkSecret, of the job's tenant and id, so every view of the
// job carries the same link while the store keeps only the token's
// SHA-256 (written with the ask, in the same transaction). A lookup hashes
// the presented token, finds the job with one indexed query and then
// checks the HMAC again, so a stored row alone does not open a job. A
// link is dead once its job leaves pending and once its question expired.

// answerLinkContext separates answer-link MACs from any other use of the
// secret.
const answerLinkContext = "askonce-answer-link\x00"

// AnswerTokenLen is the length of an answer token: 256 bits in unpadded
// base64url.
const AnswerTokenLen = 43

// AnswerToken returns the token of the answer link of j's question: set
// for a pending job (managed or gate) whose question waits for a human
// and has not expired (Question.Overdue),
// "" otherwise or when the engine has no LinkSecret.
func (e *Engine) AnswerToken(j *Job) string {
	if j == nil || len(e.LinkSecret) == 0 || j.Status != StatusPending || j.ClarificationStatus != ClarificationAsked || j.Question.Overdue(e.now()) {
		return ""
	}
	return answerToken(e.LinkSecret, j.TenantID, j.ID)
}

// AnswerURL returns base + "/a/" + j's AnswerToken, or "" when j has no
// answer link. base is the server's public URL, without a trailing slash.
func (e *Engine) AnswerURL(base string, j *Job) string {
	t := e.AnswerToken(j)
	if t == "" {
		return ""
	}
	return strings.TrimSuffix(base, "/") + "/a/" + t
}

// QuestionURL returns the answer link j's question was given, from j's
// tenant and id alone, whether or not the question still takes an answer
// (a dead link's page says what became of it): what a question.asked
// notification carries, the same on every try. "" without a LinkSecret.
func (e *Engine) QuestionURL(base string, j *Job) string {
	if j == nil || len(e.LinkSecret) == 0 {
		return ""
	}
	return strings.TrimSuffix(base, "/") + "/a/" + answerToken(e.LinkSecret, j.TenantID, j.ID)
}

func answerToken(secret []byte, tenant, id string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(answerLinkContext))
	m.Write([]byte(tenant))
	m.Write([]byte{0})
	m.Write([]byte(id))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// AnswerLinkHash is what the store keeps of an answer token: its SHA-256.
func AnswerLinkHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// questionChange marks a change that moves a job into or out of pending:
// going pending records the answer link's hash and the asked
// notification; leaving it, the resolved notification. Step stays pure:
// this only reads its result.
func (e *Engine) questionChange(cur *Job, c *Change) {
	was, is := cur.Status == StatusPending, c.Job.Status == StatusPending
	switch {
	case is && !was:
		c.Notify = QuestionAsked
		if t := e.AnswerToken(c.Job); t != "" {
			c.AnswerLink = AnswerLinkHash(t)
		}
	case was && !is:
		c.Notify = QuestionResolved
	}
}

// JobByAnswerToken returns the job an answer link names, in whatever
// status it is now (a caller tells a live link from a used or expired one
// with the job; an Act on a Token does). An unknown or malformed token
// is ENOTFOUND.
//
// The work does not depend on the token beyond the one indexed lookup:
// every token, malformed ones included, is brought to the same length and
// hashed, looked up, and compared in constant time with the HMAC of the
// job found (or of nothing).
func (e *Engine) JobByAnswerToken(ctx context.Context, token string) (*Job, error) {
	var buf [AnswerTokenLen]byte
	copy(buf[:], token)
	wellFormed := len(token) == AnswerTokenLen && validBase64URL(token)
	sum := sha256.Sum256(buf[:])
	j, err := e.Store.JobByAnswerLink(ctx, sum[:])
	if err != nil && ErrorCode(err) != ENOTFOUND {
		return nil, err
	}
	var tenant, id string
	if j != nil {
		tenant, id = j.TenantID, j.ID
	}
	want := answerToken(e.LinkSecret, tenant, id)
	match := subtle.ConstantTimeCompare([]byte(want), buf[:]) == 1
	if !match || !wellFormed || j == nil || len(e.LinkSecret) == 0 {
		return nil, Errorf(ENOTFOUND, "no such answer link")
	}
	return j, nil
}

// validBase64URL reports whether s has only base64url characters. It
// looks at every byte whatever it finds.
func validBase64URL(s string) bool {
	ok := 1
	for i := 0; i < len(s); i++ {
		c := s[i]
		in := subtle.ConstantTimeByteEq(c, '-') | subtle.ConstantTimeByteEq(c, '_') |
			inRange(c, 'A', 'Z') | inRange(c, 'a', 'z') | inRange(c, '0', '9')
		ok &= in
	}
	return ok == 1
}

func inRange(c, lo, hi byte) int {
	return subtle.ConstantTimeLessOrEq(int(lo), int(c)) & subtle.ConstantTimeLessOrEq(int(c), int(hi))
}

// liveByToken returns the job an answer link names if its question still
// waits for an answer. A job that left pending, or whose question expired
// (at and after ExpiresAt, Step's boundary) even if the sweep has not run
// yet, is ECONFLICT carrying the job.
func (e *Engine) liveByToken(ctx context.Context, token string) (*Job, error) {
	j, err := e.JobByAnswerToken(ctx, token)
	if err != nil {
		return nil, err
	}
	if j.Status != StatusPending {
		ce := Errorf(ECONFLICT, "this answer link is no longer valid: job %s is %s", j.ID, j.Status)
		ce.Job = j
		return nil, ce
	}
	if q := j.Question; q.Overdue(e.now()) {
		ce := Errorf(ECONFLICT, "this answer link is no longer valid: the question expired at %s", q.ExpiresAt.UTC().Format("2006-01-02 15:04:05 UTC"))
		ce.Job = j
		return nil, ce
	}
	return j, nil
}
