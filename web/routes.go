package web

// routes registers the pages. The answer page (answer.go) and the inbox
// (inbox.go, memory.go) add theirs here.
func (h *Handler) routes() {
	h.inboxRoutes()
	if h.oidc != nil {
		h.oidcRoutes()
	}
	h.memoryRoutes()
	h.answerRoutes()
}
