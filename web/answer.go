package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/maxbody"
	"github.com/askonce/askonce/internal/ratelimit"
)

// The answer page: /a/{token} is the capability link of one pending
// question. The token is the credential, so every response under /a/ is
// Cache-Control: no-store, and the pages ask for no API key.
//
//	GET  /a/{token}               the question and its form (410 once the link is dead)
//	POST /a/{token}               answer, decline (action=decline) or cancel (action=cancel)
//	GET  /a/{token}/outcome       planning…, then the plan or the failure
//	GET  /a/{token}/outcome.json  the same, for the page's script to poll
//
// Cross-site request forgery: a forged POST would have to know the token,
// which is in the URL only; a POST that the browser marks cross-site, or
// whose Origin header names another host, is refused as well.
//
// After the answer the token still names the job, but it is a credential
// that may sit in browser history, mail or chat: it shows the outcome only
// while the job plans and for OutcomeWindow after the answer (or the
// cancel), long enough to watch the plan arrive, and answers 410 after
// that, so a leaked old link shows nothing of the plan.

// OutcomeWindow is how long after its answer (or cancel) a job's outcome
// can still be seen through its answer link.
const OutcomeWindow = time.Hour

// maxAnswerForm caps the body of an answer POST.
const maxAnswerForm = 64 << 10

// DefaultFailedLookups is how many unknown answer tokens one client
// address may present per minute before further unknown ones are
// answered 429; a valid token is never refused.
const DefaultFailedLookups = ratelimit.DefaultLimit

// answerRoutes registers the answer page.
func (h *Handler) answerRoutes() {
	h.mux.Handle("GET /a/{token}", noStore(h.answerForm))
	h.mux.Handle("POST /a/{token}", noStore(h.answerSubmit))
	h.mux.Handle("GET /a/{token}/outcome", noStore(h.answerOutcome))
	h.mux.Handle("GET /a/{token}/outcome.json", noStore(h.answerOutcomeJSON))
	h.mux.Handle("/a/", noStore(func(w http.ResponseWriter, r *http.Request) {
		h.answerNotFound(w)
	}))
}

func noStore(f http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		f(w, r)
	})
}

// answerForm shows the question of a live link, or why the link is dead.
func (h *Handler) answerForm(w http.ResponseWriter, r *http.Request) {
	token := r.PathValue("token")
	j, ok := h.liveLink(w, r, token)
	if !ok {
		return
	}
	v := newFormView(j, token)
	switch {
	case v.Fields != nil:
		v.checkFieldDefaults()
	case j.Question != nil:
		v.keep(preselected(r, j.Question), false, "", "")
	}
	v.Action += emailLinkQuery(r)
	h.render(w, http.StatusOK, "answer.html", page{Title: "Question", Scripts: []string{"answer.js"}, Data: v})
}

// preselected is the option the page shows chosen: the one ?choice=N
// names (by its index; the email channel's option links), else the
// default. Showing it chosen answers nothing: the page's button does.
func preselected(r *http.Request, q *askonce.Question) string {
	if c := r.URL.Query().Get("choice"); c != "" {
		if i, err := strconv.Atoi(c); err == nil && i >= 0 && i < len(q.Options) {
			return q.Options[i]
		}
	}
	return q.Default
}

// answeredVia is the channel of an answer given on the page: an
// email's link (?via=email-link, which the email channel's links carry
// and the form keeps), else the web.
func answeredVia(r *http.Request) string {
	if r.URL.Query().Get("via") == askonce.ViaEmailLink {
		return askonce.ViaEmailLink
	}
	return askonce.ViaWeb
}

// liveLink finds the job of a link that still takes an answer. It has
// answered the request (404, 429 or 410 saying why the link is dead) when
// ok is false.
func (h *Handler) liveLink(w http.ResponseWriter, r *http.Request, token string) (*askonce.Job, bool) {
	j, ok := h.answerLookup(w, r, token)
	if !ok {
		return nil, false
	}
	if g := h.linkGone(j, token); g != nil {
		h.render(w, http.StatusGone, "answer_gone.html", page{Title: g.Heading, Data: g})
		return nil, false
	}
	return j, true
}

// answerSubmit answers, declines or cancels through the link.
func (h *Handler) answerSubmit(w http.ResponseWriter, r *http.Request) {
	token := r.PathValue("token")
	if !answerPostAllowed(r) {
		h.answerMessage(w, http.StatusForbidden, "Refused", "This form was sent from another site. Open the link again and answer from its own page.")
		return
	}
	r.Body = maxbody.Reader(w, r, maxAnswerForm)
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			h.answerMessage(w, http.StatusRequestEntityTooLarge, "Too large", "The form is larger than "+strconv.Itoa(maxAnswerForm>>10)+" KiB.")
			return
		}
		h.answerMessage(w, http.StatusBadRequest, "Bad form", "The form could not be read.")
		return
	}
	j, ok := h.liveLink(w, r, token)
	if !ok {
		return
	}
	who := h.answerer(r, j)
	if !j.Notify.MayAnswer(who) {
		h.refuse(w, r, j, who)
		return
	}
	ctx := askonce.WithAnswerer(r.Context(), who)
	text, other, path := formAnswer(r.PostForm)
	answer := askonce.TextAnswer(text)
	form := newFormView(j, token)
	switch {
	case form.Single:
		answer = form.singleAnswer(r.PostForm)
	case form.Fields != nil:
		answer = form.fieldsAnswer(r.PostForm)
	case j.Question != nil && strings.TrimSpace(path) == "" && slices.Contains(j.Question.Options, text):
		// A radio picked: the option itself.
		answer = askonce.AnswerOf(askonce.OptionValue(text))
	}
	// The job the link named, as read and checked live above, is the
	// act's target: it is not read again.
	act := askonce.Act{Job: j, Background: true}
	switch r.PostForm.Get("action") {
	case "", "answer":
		act.Do, act.Answer, act.DontRemember = askonce.ActAnswer, answer, r.PostForm.Get("dont_remember") != ""
	case "decline":
		act.Do = askonce.ActDecline
	case "cancel":
		act.Do, act.Background = askonce.ActCancel, false
	default:
		h.answerMessage(w, http.StatusBadRequest, "Bad form", "Unknown action.")
		return
	}
	_, _, err := h.engine.Act(ctx, act)
	var ae *askonce.Error
	errors.As(err, &ae)
	switch {
	case err == nil:
		http.Redirect(w, r, "/a/"+token+"/outcome", http.StatusSeeOther)
	case ae != nil && ae.Code == askonce.EINVALID:
		v := newFormView(j, token)
		v.Error, v.Allowed = ae.Message, ae.Allowed
		switch {
		case v.Single:
			v.Error, v.Allowed = "", nil
			v.keepFields(r.PostForm, []askonce.FieldError{{Name: "answer", Message: ae.Message, Allowed: ae.Allowed}})
			v.Error = ""
		case v.Fields != nil:
			v.keepFields(r.PostForm, ae.Fields)
		}
		v.keep(r.PostForm.Get("answer"), r.PostForm.Has("answer"), other, path)
		v.DontRemember = r.PostForm.Get("dont_remember") != ""
		if j.Question != nil && j.Question.Type == askonce.QuestionFreeText {
			v.setTyped(r.PostForm.Get("answer"))
		}
		h.render(w, http.StatusUnprocessableEntity, "answer.html", page{Title: "Question", Scripts: []string{"answer.js"}, Data: v})
	case ae != nil && ae.Code == askonce.ECONFLICT && ae.Job != nil:
		if g := h.linkGone(ae.Job, token); g != nil {
			h.render(w, http.StatusGone, "answer_gone.html", page{Title: g.Heading, Data: g})
			return
		}
		v := newFormView(ae.Job, token)
		v.Error = "The question changed while you answered; please answer again."
		h.render(w, http.StatusConflict, "answer.html", page{Title: "Question", Scripts: []string{"answer.js"}, Data: v})
	case ae != nil && ae.Code == askonce.ENOTFOUND:
		h.answerNotFound(w)
	default:
		h.answerFailed(w, err)
	}
}

// formAnswer reads the answer from the form: the chosen option or file
// (answer), else the text of one's own beside the Other radio (other), and
// a typed path (path), which wins over a chosen file.
func formAnswer(f url.Values) (answer, other, path string) {
	answer, other, path = f.Get("answer"), f.Get("other"), f.Get("path")
	switch {
	case strings.TrimSpace(path) != "":
		answer = path
	case answer == "": // the Other radio, or none
		answer = other
	}
	return answer, other, path
}

// answerOutcome shows what became of the answer: planning…, the plan or
// the failure.
func (h *Handler) answerOutcome(w http.ResponseWriter, r *http.Request) {
	token := r.PathValue("token")
	j, ok := h.answerLookup(w, r, token)
	if !ok {
		return
	}
	if h.linkGone(j, token) == nil {
		http.Redirect(w, r, "/a/"+token, http.StatusSeeOther)
		return
	}
	if !h.outcomeVisible(j) {
		g := h.linkGone(j, "")
		h.render(w, http.StatusGone, "answer_gone.html", page{Title: g.Heading, Data: g})
		return
	}
	v := newOutcomeView(j, token)
	h.render(w, http.StatusOK, "answer_outcome.html", page{Title: v.Heading, Scripts: []string{"answer.js"}, Data: v})
}

// outcomeJSON is what answer.js polls: the job's status, whether it will
// change again, and the outcome rendered as the page shows it.
type outcomeJSON struct {
	Status string `json:"status"`
	Done   bool   `json:"done"`
	HTML   string `json:"html,omitempty"`
}

func (h *Handler) answerOutcomeJSON(w http.ResponseWriter, r *http.Request) {
	token := r.PathValue("token")
	j, ok := h.answerLookup(w, r, token)
	if !ok {
		return
	}
	status, out := http.StatusOK, outcomeJSON{Status: string(j.Status), Done: j.Status.Terminal()}
	switch {
	case h.linkGone(j, token) == nil:
		status, out.Done = http.StatusConflict, true
	case !h.outcomeVisible(j):
		status, out = http.StatusGone, outcomeJSON{Status: "gone", Done: true}
	default:
		var b strings.Builder
		if err := h.pages.ExecuteTemplate(&b, "outcome-body", newOutcomeView(j, token)); err != nil {
			h.answerFailed(w, err)
			return
		}
		out.HTML = b.String()
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(out)
}

// answerLookup finds the job of token, counting unknown tokens against
// the client's address. A token is always looked up, so that a valid link
// opens whatever others behind the same address (a NAT, a proxy) tried;
// an unknown one from an address over its limit is answered 429 instead
// of 404. It has answered the request when ok is false.
func (h *Handler) answerLookup(w http.ResponseWriter, r *http.Request, token string) (*askonce.Job, bool) {
	addr := h.proxies.Addr(r)
	j, err := h.engine.JobByAnswerToken(r.Context(), token)
	switch {
	case askonce.ErrorCode(err) == askonce.ENOTFOUND:
		if !h.lookups.Allow(addr) {
			h.lookups.Fail(addr)
			h.answerTooMany(w, h.lookups.RetryAfter(addr), "invalid links")
			return nil, false
		}
		h.lookups.Fail(addr)
		h.answerNotFound(w)
		return nil, false
	case err != nil:
		h.answerFailed(w, err)
		return nil, false
	}
	return j, true
}

// outcomeVisible reports whether the link may still show j's outcome:
// while it plans, and for OutcomeWindow after it was answered or left
// pending otherwise.
func (h *Handler) outcomeVisible(j *askonce.Job) bool {
	if j.Status == askonce.StatusPlanning {
		return true
	}
	since := j.UpdatedAt
	if j.AnsweredAt != nil {
		since = *j.AnsweredAt
	}
	return h.answerNow().Sub(since) < OutcomeWindow
}

// linkGone says why j's link no longer takes an answer, nil while it
// does. token, when set, lets the page link to the outcome while it can
// be seen.
func (h *Handler) linkGone(j *askonce.Job, token string) *goneView {
	now := h.answerNow()
	g := newGoneView(j, now)
	if g == nil {
		return nil
	}
	if token != "" && g.Kind != goneExpired && h.outcomeVisible(j) {
		g.OutcomeURL = "/a/" + token + "/outcome"
	}
	return g
}

func (h *Handler) answerNow() time.Time {
	if h.engine.Now != nil {
		return h.engine.Now()
	}
	return time.Now()
}

// answerPostAllowed reports whether a POST may come from this page: not when
// the browser says it was sent from another site (Sec-Fetch-Site), nor
// when its Origin names another host. Under Referrer-Policy: no-referrer
// browsers send "Origin: null" even from the page itself, so null is no
// evidence either way; the token in the URL is what a forger lacks.
func answerPostAllowed(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site", "same-site":
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" || o == "null" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host)
}

func (h *Handler) answerNotFound(w http.ResponseWriter) {
	h.answerMessage(w, http.StatusNotFound, "Link not found",
		"This answer link is not valid. Check that you copied all of it.")
}

// answerTooMany answers 429: too many of what were tried from the
// client's address.
func (h *Handler) answerTooMany(w http.ResponseWriter, wait time.Duration, what string) {
	secs := ratelimit.Seconds(wait)
	w.Header().Set("Retry-After", secs)
	h.answerMessage(w, http.StatusTooManyRequests, "Too many attempts",
		"Too many "+what+" were tried from your address. Try again in "+secs+" seconds.")
}

func (h *Handler) answerFailed(w http.ResponseWriter, err error) {
	h.log.Error("answer page", "err", err)
	h.answerMessage(w, http.StatusInternalServerError, "Something went wrong", "The server could not handle this request. Try again later.")
}

// messageView is a page that only says something.
type messageView struct {
	Heading, Text string
}

func (h *Handler) answerMessage(w http.ResponseWriter, status int, heading, text string) {
	h.render(w, status, "answer_message.html", page{Title: heading, Data: messageView{heading, text}})
}
