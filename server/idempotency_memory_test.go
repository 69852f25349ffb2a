package server_test

import (
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/server"
	"github.com/askonce/askonce/storetest"
)

func TestMemoryIdempotency(t *testing.T) {
	storetest.RunIdempotency(t, func(t *testing.T) askonce.IdempotencyStore { return server.NewMemoryIdempotency() })
}
