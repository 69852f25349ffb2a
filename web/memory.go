package web

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/askonce/askonce"
)

// The inbox's memory page: /ui/memory lists the answers remembered in a
// project (?project=NAME) or in the whole tenant (?scope=tenant), with a
// Forget button for each (POST /ui/memory/forget).

func (h *Handler) memoryRoutes() {
	h.mux.HandleFunc("GET /ui/memory", h.memoryPage)
	h.mux.HandleFunc("POST /ui/memory/forget", h.forget)
}

// memoryView is the data of /ui/memory.
type memoryView struct {
	Viewer  *viewer
	Now     time.Time
	Scope   askonce.MemoryScope
	Project string
	// Chosen: a project or the tenant was chosen, and Entries are its.
	Chosen  bool
	Entries []askonce.HistoryEntry
	// Forgot is the question just forgotten, to confirm it.
	Forgot string
}

// memoryQuery reads ?scope=&project= (a project alone means scope
// project). Its errors are EINVALID naming the field.
func memoryQuery(q url.Values) (askonce.MemoryScope, string, error) {
	project := strings.TrimSpace(q.Get("project"))
	scope := q.Get("scope")
	if scope == "" {
		if project == "" {
			return "", "", nil
		}
		scope = string(askonce.MemoryProject)
	}
	sc, err := askonce.ParseMemoryScope("scope", scope)
	if err != nil {
		return "", "", err
	}
	return sc, project, askonce.ValidateProject("project", project)
}

func memoryURL(scope askonce.MemoryScope, project string) string {
	q := url.Values{"scope": {string(scope)}}
	if project != "" && scope == askonce.MemoryProject {
		q.Set("project", project)
	}
	return "/ui/memory?" + q.Encode()
}

// memoryPage serves /ui/memory.
func (h *Handler) memoryPage(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(w, r)
	if v == nil {
		signIn(w, r)
		return
	}
	scope, project, err := memoryQuery(r.URL.Query())
	if err != nil {
		h.engineError(w, err)
		return
	}
	mv := &memoryView{Viewer: v, Now: time.Now(), Scope: scope, Project: project, Forgot: r.URL.Query().Get("forgot")}
	if scope != "" {
		mv.Entries, err = h.engine.Memory(r.Context(), askonce.MemoryFilter{TenantID: v.Tenant, Scope: scope, Project: project})
		if err != nil {
			h.engineError(w, err)
			return
		}
		mv.Chosen = true
	}
	h.renderInbox(w, http.StatusOK, "memory.html", page{Title: "Memory", Data: mv})
}

// forget serves the memory page's Forget buttons: the entry of the
// viewer's tenant only.
func (h *Handler) forget(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(w, r)
	if v == nil {
		h.inboxError(w, http.StatusForbidden, "Forbidden", "Sign in to forget an answer.")
		return
	}
	if msg := h.checkPost(r, v); msg != "" {
		h.inboxError(w, http.StatusForbidden, "Forbidden", msg)
		return
	}
	scope, project, err := memoryQuery(r.PostForm)
	if err == nil && scope == "" {
		err = askonce.Errorf(askonce.EINVALID, "scope is required")
	}
	if err != nil {
		h.engineError(w, err)
		return
	}
	hash := r.PostForm.Get("hash")
	if err := h.engine.Forget(r.Context(), askonce.MemoryKey{TenantID: v.Tenant, Scope: scope, Project: project, QuestionHash: hash}); err != nil {
		h.engineError(w, err)
		return
	}
	http.Redirect(w, r, memoryURL(scope, project)+"&forgot="+url.QueryEscape(hash), http.StatusSeeOther)
}
