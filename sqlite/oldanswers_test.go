package sqlite

import (
	"testing"

	"github.com/askonce/askonce/storetest"
)

// An answer stored before answers were typed, as text, reads back typed
// against its question (storetest.RunOldTextAnswers).
func TestAnswersStoredAsTextReadTyped(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{})
	storetest.RunOldTextAnswers(t, s, func(t *testing.T, id, old string) {
		if _, err := s.writer.ExecContext(t.Context(), `UPDATE jobs SET clarification_value = json_object('old', ?), clarification_status = 'answered', status = 'planning' WHERE id = ?`, old, id); err != nil {
			t.Fatal(err)
		}
	})
}
