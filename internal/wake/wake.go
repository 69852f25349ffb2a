// Package wake fans wake-ups out to the goroutines waiting on a key: the
// in-process half of askonce.Watcher, shared by the stores (SQLite wakes
// on its own commits, PostgreSQL on the notifications of every process's).
package wake

import "sync"

// Hub holds the waiters by key. The zero value is ready to use.
type Hub struct {
	mu   sync.Mutex
	subs map[string]map[chan struct{}]struct{}
}

// Watch returns a channel that receives a value after each Wake of key
// (wake-ups that come while one is pending merge into it) and the
// function that ends the watch.
func (h *Hub) Watch(key string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	if h.subs == nil {
		h.subs = map[string]map[chan struct{}]struct{}{}
	}
	if h.subs[key] == nil {
		h.subs[key] = map[chan struct{}]struct{}{}
	}
	h.subs[key][ch] = struct{}{}
	h.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			delete(h.subs[key], ch)
			if len(h.subs[key]) == 0 {
				delete(h.subs, key)
			}
		})
	}
}

// Wake wakes every waiter on key, without blocking.
func (h *Hub) Wake(key string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs[key] {
		notify(ch)
	}
}

// WakeAll wakes every waiter, for when wake-ups may have been missed (a
// lost notification connection).
func (h *Hub) WakeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, subs := range h.subs {
		for ch := range subs {
			notify(ch)
		}
	}
}

// Waiting reports whether anyone waits on key.
func (h *Hub) Waiting(key string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs[key]) > 0
}

func notify(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default: // one is pending already
	}
}
