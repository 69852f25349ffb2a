package storetest

import (
	"slices"
	"testing"

	"github.com/askonce/askonce"
)

// sharedTest is one behaviour of two stores on one database: what
// processes (replicas) sharing a database rely on.
type sharedTest struct {
	name string
	run  func(t *testing.T, a, b askonce.Store)
}

// RunShared runs the cross-connection cases against pairs of stores that
// open returns: two Store values, each with connections of its own, on
// one new, empty database (for SQLite, two stores opened on one file).
// open is called once per behaviour; RunShared closes both stores when
// its subtest ends. The subtests run in parallel.
func RunShared(t *testing.T, open func(t *testing.T) (a, b askonce.Store)) {
	for _, tc := range slices.Concat(sharedTests, sharedLeaseTests) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, b := open(t)
			t.Cleanup(func() {
				for _, s := range []askonce.Store{a, b} {
					if err := s.Close(); err != nil {
						t.Errorf("close store: %v", err)
					}
				}
			})
			tc.run(t, a, b)
		})
	}
}

var sharedTests = []sharedTest{}
