package web

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/askonce/askonce"
)

// The operators' inbox: /ui lists the tenant's pending questions (oldest
// first) and then its recent jobs; /ui/jobs/{id} shows one job. The pages
// are complete without JavaScript; inbox.js polls /ui/updates and reloads
// the live part of the page when its state changed.

// maxPending is the most pending questions the inbox lists, and
// maxPendingPages the most pages of them it reads to find the oldest.
const (
	maxPending      = 500
	maxPendingPages = 20
)

// maxSessionFilter is the longest session id the filter accepts.
const maxSessionFilter = 256

// inboxRoutes registers the inbox's pages.
func (h *Handler) inboxRoutes() {
	// The site's root is the inbox: the first page a new user opens.
	h.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ui", http.StatusSeeOther)
	})
	h.mux.HandleFunc("GET /ui", h.inbox)
	h.mux.HandleFunc("GET /ui/{$}", h.inbox)
	h.mux.HandleFunc("GET /ui/jobs/{id}", h.job)
	h.mux.HandleFunc("POST /ui/jobs/{id}/cancel", h.cancel)
	h.mux.HandleFunc("GET /ui/updates", h.updates)
	h.mux.HandleFunc("GET /ui/login", h.login)
	h.mux.HandleFunc("POST /ui/login", h.login)
	h.mux.HandleFunc("POST /ui/logout", h.logout)
	h.mux.HandleFunc("/ui/", func(w http.ResponseWriter, r *http.Request) {
		h.inboxError(w, http.StatusNotFound, "Not found", "There is no inbox page at this address.")
	})
}

// renderInbox renders an inbox page: same-origin referrers (for the CSRF
// origin check) and never cached.
func (h *Handler) renderInbox(w http.ResponseWriter, status int, name string, p page) {
	w.Header().Set("Referrer-Policy", "same-origin")
	w.Header().Set("Cache-Control", "no-store")
	p.Referrer = "same-origin"
	h.render(w, status, name, p)
}

// inboxError renders the inbox's error page.
func (h *Handler) inboxError(w http.ResponseWriter, status int, title, msg string) {
	h.renderInbox(w, status, "inbox_error.html", page{Title: title, Data: struct {
		Status         int
		Title, Message string
	}{status, title, msg}})
}

// engineError renders err from an engine call as a page.
func (h *Handler) engineError(w http.ResponseWriter, err error) {
	switch askonce.ErrorCode(err) {
	case askonce.EINVALID:
		h.inboxError(w, http.StatusBadRequest, "Bad request", askonce.ErrorMessage(err))
	case askonce.ENOTFOUND:
		h.inboxError(w, http.StatusNotFound, "Not found", askonce.ErrorMessage(err))
	case askonce.ECONFLICT:
		h.inboxError(w, http.StatusConflict, "Conflict", askonce.ErrorMessage(err))
	default:
		h.log.Error("inbox", "err", err)
		h.inboxError(w, http.StatusInternalServerError, "Internal error", "Something went wrong; the server log says what.")
	}
}

// signIn sends a visitor without a session to the login form.
func signIn(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
}

// inboxFilter is the list's query: ?status=&session=&cursor=.
type inboxFilter struct {
	Status  askonce.Status
	Session string
	Cursor  string
}

// parseFilter validates the query. Its errors are EINVALID.
func parseFilter(q url.Values) (inboxFilter, error) {
	f := inboxFilter{
		Status:  askonce.Status(strings.TrimSpace(q.Get("status"))),
		Session: strings.TrimSpace(q.Get("session")),
		Cursor:  q.Get("cursor"),
	}
	if f.Status != "" && !f.Status.Valid() {
		return f, askonce.Errorf(askonce.EINVALID, "status %q is not a job status; use one of %s", f.Status, strings.Join(statusNames(), ", "))
	}
	if len(f.Session) > maxSessionFilter {
		return f, askonce.Errorf(askonce.EINVALID, "the session filter is longer than %d bytes", maxSessionFilter)
	}
	return f, nil
}

// query returns the filter as a query string, with cursor replaced.
func (f inboxFilter) query(cursor string) string {
	q := url.Values{}
	if f.Status != "" {
		q.Set("status", string(f.Status))
	}
	if f.Session != "" {
		q.Set("session", f.Session)
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// statuses lists every job status, in the order a job may reach them: the
// root package's one list.
var statuses = askonce.Statuses

func statusNames() []string {
	s := make([]string, len(statuses))
	for i, st := range statuses {
		s[i] = string(st)
	}
	return s
}

// inboxView is the data of /ui.
type inboxView struct {
	Viewer   *viewer
	Now      time.Time
	Pending  []*askonce.Job
	More     bool // more than maxPending questions wait
	Jobs     []*askonce.Job
	Filter   inboxFilter
	Statuses []string
	Next     string // the next page's URL, empty on the last page
	First    string // the first page's URL, when on a later page
	State    string
	Updates  string // the URL inbox.js polls
}

// inboxData reads the inbox of v's tenant under f.
func (h *Handler) inboxData(ctx context.Context, v *viewer, f inboxFilter) (*inboxView, error) {
	pending, more, err := h.oldestPending(ctx, v.Tenant)
	if err != nil {
		return nil, err
	}
	// Longest waiting first: a pending job's UpdatedAt is when it asked.
	slices.SortStableFunc(pending, func(a, b *askonce.Job) int {
		return cmp.Or(a.UpdatedAt.Compare(b.UpdatedAt), strings.Compare(a.ID, b.ID))
	})
	list, err := h.engine.List(ctx, v.Tenant, askonce.JobFilter{Status: f.Status, SessionID: f.Session, Cursor: f.Cursor})
	if err != nil {
		return nil, err
	}
	iv := &inboxView{
		Viewer: v, Now: time.Now(), Pending: pending, More: more,
		Jobs: list.Jobs, Filter: f, Statuses: statusNames(),
		Updates: "/ui/updates" + f.query(f.Cursor),
	}
	if list.NextCursor != "" {
		iv.Next = "/ui" + f.query(list.NextCursor)
	}
	if f.Cursor != "" {
		iv.First = "/ui" + f.query("")
	}
	iv.State = stateOf(pending, list.Jobs)
	return iv, nil
}

// oldestPending returns the tenant's oldest maxPending pending jobs (the
// list is newest first, so it keeps the tail), reading at most
// maxPendingPages pages; more reports that some were left out.
func (h *Handler) oldestPending(ctx context.Context, tenant string) (jobs []*askonce.Job, more bool, err error) {
	cursor := ""
	for range maxPendingPages {
		page, err := h.engine.List(ctx, tenant, askonce.JobFilter{Status: askonce.StatusPending, Limit: maxPending, Cursor: cursor})
		if err != nil {
			return nil, false, err
		}
		jobs = append(jobs, page.Jobs...)
		if len(jobs) > maxPending {
			jobs, more = jobs[len(jobs)-maxPending:], true
		}
		if cursor = page.NextCursor; cursor == "" {
			return jobs, more, nil
		}
	}
	return jobs, true, nil
}

// stateOf fingerprints lists of jobs: it changes when a job joins, leaves
// or changes.
func stateOf(lists ...[]*askonce.Job) string {
	hs := sha256.New()
	for _, l := range lists {
		for _, j := range l {
			fmt.Fprintf(hs, "%s:%d;", j.ID, j.Version)
		}
		hs.Write([]byte{'|'})
	}
	return hex.EncodeToString(hs.Sum(nil)[:12])
}

// inbox serves /ui.
func (h *Handler) inbox(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(w, r)
	if v == nil {
		signIn(w, r)
		return
	}
	f, err := parseFilter(r.URL.Query())
	if err != nil {
		h.engineError(w, err)
		return
	}
	iv, err := h.inboxData(r.Context(), v, f)
	if err != nil {
		h.engineError(w, err)
		return
	}
	h.renderInbox(w, http.StatusOK, "inbox.html", page{Title: "Inbox", Scripts: []string{"inbox.js"}, Data: iv})
}

// updates serves /ui/updates: {"state": "..."} of the inbox under the same
// query as /ui, or with ?job=ID of that job's page. inbox.js reloads the
// page's live part when the state differs from the one it was rendered
// with.
func (h *Handler) updates(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	v := h.viewer(w, r)
	if v == nil {
		writeState(w, http.StatusUnauthorized, "", "sign in again")
		return
	}
	var state string
	if id := r.URL.Query().Get("job"); id != "" {
		jv, err := h.jobData(r.Context(), v, id)
		if err != nil {
			writeState(w, statusOf(err), "", askonce.ErrorMessage(err))
			return
		}
		state = jv.State
	} else {
		f, err := parseFilter(r.URL.Query())
		if err != nil {
			writeState(w, http.StatusBadRequest, "", askonce.ErrorMessage(err))
			return
		}
		iv, err := h.inboxData(r.Context(), v, f)
		if err != nil {
			writeState(w, statusOf(err), "", askonce.ErrorMessage(err))
			return
		}
		state = iv.State
	}
	writeState(w, http.StatusOK, state, "")
}

func writeState(w http.ResponseWriter, status int, state, msg string) {
	b, _ := json.Marshal(struct {
		State string `json:"state,omitempty"`
		Error string `json:"error,omitempty"`
	}{state, msg})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

func statusOf(err error) int {
	switch askonce.ErrorCode(err) {
	case askonce.EINVALID:
		return http.StatusBadRequest
	case askonce.ENOTFOUND:
		return http.StatusNotFound
	}
	return http.StatusInternalServerError
}

// jobView is the data of /ui/jobs/{id}.
type jobView struct {
	Viewer   *viewer
	Now      time.Time
	Job      *askonce.Job
	Attempts []askonce.Attempt
	Events   []askonce.Event
	Plan     []*taskNode
	State    string
	Updates  string
	// AnswerURL is the job's answer link while it is pending.
	AnswerURL string
	// Candidates are the first of the job's candidates, nil for none.
	Candidates *fewNames
	// MemoryNote says which remembered answer resolved the question.
	MemoryNote string
}

// shownCandidates is how many of a job's candidates its page lists: a job
// may carry a thousand.
const shownCandidates = 10

// fewNames are the first names of a list and how many it has.
type fewNames struct {
	Shown []string
	Total int
}

// More reports whether names were left out.
func (f *fewNames) More() bool { return f.Total > len(f.Shown) }

func fewOf(names []string, n int) *fewNames {
	if len(names) == 0 {
		return nil
	}
	return &fewNames{Shown: names[:min(n, len(names))], Total: len(names)}
}

// jobData reads one job of v's tenant with its attempts and events.
func (h *Handler) jobData(ctx context.Context, v *viewer, id string) (*jobView, error) {
	j, err := h.engine.Get(ctx, v.Tenant, id)
	if err != nil {
		return nil, err
	}
	atts, err := h.engine.Attempts(ctx, v.Tenant, id)
	if err != nil {
		return nil, err
	}
	evs, err := h.engine.Events(ctx, v.Tenant, id, 0, 1000)
	if err != nil {
		return nil, err
	}
	jv := &jobView{Viewer: v, Now: time.Now(), Job: j, Attempts: atts, Events: evs, Updates: "/ui/updates?job=" + url.QueryEscape(id),
		Candidates: fewOf(j.Candidates, shownCandidates), MemoryNote: j.MemoryNote(time.Now())}
	if j.Plan != nil {
		jv.Plan = planTree(j.Plan.Tasks)
	}
	// The answer page is on this origin: the link is relative.
	jv.AnswerURL = h.engine.AnswerURL("", j)
	var last int64
	if len(evs) > 0 {
		last = evs[len(evs)-1].ID
	}
	jv.State = fmt.Sprintf("%d.%d", j.Version, last)
	return jv, nil
}

// job serves /ui/jobs/{id}.
func (h *Handler) job(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(w, r)
	if v == nil {
		signIn(w, r)
		return
	}
	jv, err := h.jobData(r.Context(), v, r.PathValue("id"))
	if err != nil {
		h.engineError(w, err)
		return
	}
	h.renderInbox(w, http.StatusOK, "job.html", page{Title: jobTitle(jv.Job), Scripts: []string{"inbox.js"}, Data: jv})
}

// cancel serves the job page's Cancel button.
func (h *Handler) cancel(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(w, r)
	if v == nil {
		// Without a session there is no token to check: refuse rather
		// than send a cross-site post to the login form.
		h.inboxError(w, http.StatusForbidden, "Forbidden", "Sign in to cancel a job.")
		return
	}
	if msg := h.checkPost(r, v); msg != "" {
		h.inboxError(w, http.StatusForbidden, "Forbidden", msg)
		return
	}
	id := r.PathValue("id")
	if _, _, err := h.engine.Act(r.Context(), askonce.Act{Do: askonce.ActCancel, TenantID: v.Tenant, ID: id}); err != nil {
		h.engineError(w, err)
		return
	}
	http.Redirect(w, r, "/ui/jobs/"+url.PathEscape(id), http.StatusSeeOther)
}

func jobTitle(j *askonce.Job) string {
	if j.Title != "" {
		return j.Title
	}
	return "Job " + j.ID
}

// age says how long ago t was, coarsely ("3m", "2h", "5d").
func age(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d/time.Second)))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}

// until says how long until t ("in 23h"), or "expired".
func until(now time.Time, t *time.Time) string {
	if t == nil {
		return "never"
	}
	if !t.After(now) {
		return "expired"
	}
	return "in " + age(*t, now)
}

func init() {
	funcs["age"] = age
	funcs["until"] = until
	funcs["stamp"] = func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") }
	funcs["iso"] = func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	funcs["isoPtr"] = func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format(time.RFC3339)
	}
	funcs["ms"] = func(d time.Duration) string { return d.Round(time.Millisecond).String() }
	funcs["join"] = strings.Join
	funcs["str"] = func(v any) string { return fmt.Sprint(v) }
	funcs["isDefault"] = func(q *askonce.Question, o string) bool { return q != nil && q.Default == o }
}
