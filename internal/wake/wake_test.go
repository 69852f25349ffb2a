package wake

import (
	"testing"
)

func TestWakeReachesTheWaitersOfItsKeyOnly(t *testing.T) {
	var h Hub
	a, stopA := h.Watch("a")
	b, stopB := h.Watch("b")
	defer stopB()
	h.Wake("a")
	h.Wake("a") // merges with the pending one
	select {
	case <-a:
	default:
		t.Fatal("the waiter on a was not woken")
	}
	select {
	case <-a:
		t.Fatal("two wake-ups while one was pending were not merged")
	case <-b:
		t.Fatal("the waiter on b was woken by a wake of a")
	default:
	}
	stopA()
	stopA() // twice is harmless
	if h.Waiting("a") {
		t.Error("a watch that ended is still waiting")
	}
	h.WakeAll()
	select {
	case <-b:
	default:
		t.Error("WakeAll did not wake the waiter on b")
	}
}
