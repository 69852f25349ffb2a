package askonce

// Caller is who an API key says a request comes from, as every channel
// that takes keys sees it (the HTTP API, the inbox, MCP, A2A): the keys
// file builds it (auth.Keys.Caller), the channel checks what the
// caller asks for against it.
type Caller struct {
	// Tenant scopes every job the caller sees or makes.
	Tenant string
	// Name is the key's name in the keys file ("" when it has none):
	// the AnsweredBy of the caller's answers.
	Name string
	// Allow, when set, refuses the recipients the caller's key may not
	// name, with EINVALID naming the first; nil allows any.
	Allow func(*Recipients) error
}

// AllowRecipients returns nil when r is well formed (Validate) and c may
// name every recipient of it (a job with no recipients of its own gets
// the engine's defaults, which are always allowed), else the EINVALID of
// Validate or Allow.
func (c Caller) AllowRecipients(r *Recipients) error {
	if err := r.Validate(); err != nil {
		return err
	}
	if c.Allow == nil || r.Empty() {
		return nil
	}
	return c.Allow(r)
}
