package web

// routes registers the pages. The answer page (answer.go) and the inbox
// (inbox.go, memory.go) add theirs here.
func (h *Handler) routes() {
	h.inboxRoutes()
	h.memoryRoutes()
	h.answerRoutes()
}
