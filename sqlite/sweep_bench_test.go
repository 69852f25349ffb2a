package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/storetest"
)

// BenchmarkDueQuestions is one sweep for expired questions on a store
// with 10,000 pending jobs, 100 of them due: what the sweep costs as the
// number of jobs waiting for an answer grows.
func BenchmarkDueQuestions(b *testing.B) {
	s := openTest(b, Options{})
	ctx := context.Background()
	tenant := storetest.NewTenant()
	now := time.Now()
	for i := range 10000 {
		j := storetest.NewJob(tenant)
		expires := now.Add(time.Hour + time.Duration(i)*time.Second)
		if i%100 == 0 {
			expires = now.Add(-time.Duration(i) * time.Millisecond)
		}
		j.Status, j.ClarificationStatus = askonce.StatusPending, askonce.ClarificationAsked
		j.Question = &askonce.Question{Type: askonce.QuestionFreeText, Text: "Which colour?", ExpiresAt: &expires}
		if err := s.CreateJob(ctx, &askonce.Change{Job: j}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		refs, err := s.DueQuestions(ctx, now, 100)
		if err != nil || len(refs) != 100 {
			b.Fatalf("%d due, %v; want 100", len(refs), err)
		}
	}
}
