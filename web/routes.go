package web

import "net/http"

// routes registers the pages. The answer page (answer.go) and the inbox
// (inbox.go) add theirs here.
func (h *Handler) routes() {
	h.answerRoutes()
	h.mux.HandleFunc("GET /ui", func(w http.ResponseWriter, r *http.Request) {
		h.render(w, http.StatusOK, "placeholder.html", page{Title: "askonce"})
	})
}
