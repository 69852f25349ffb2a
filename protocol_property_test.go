package askonce

import (
	"reflect"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// genInput draws any input Step can receive, including ones the state does
// not allow and answers that do not fit the question.
func genInput(t *rapid.T) Input {
	questions := []Question{
		tempQuestion(),
		{Type: QuestionConfirm, Text: "Delete it?", Options: []string{"yes", "no"}, Default: "no"},
		{Type: QuestionFreeText, Text: "What should it do?"},
		{Type: QuestionSelectOne, Text: "Hot or frozen?", Options: []string{"hot", "frozen"}, Cosmetic: true},
	}
	// Inputs that end a job are drawn rarely, so that long chains of
	// questions, answers and re-asks are explored.
	kinds := []int{0, 1, 1, 1, 1, 1, 1, 2, 3, 4, 4, 4, 4, 5, 5, 6, 6, 7}
	switch rapid.SampledFrom(kinds).Draw(t, "kind") {
	case 0:
		return Planned{Plan: onePlan(), Title: rapid.SampledFrom([]string{"", "T"}).Draw(t, "title")}
	case 1:
		in := Asked{Question: rapid.SampledFrom(questions).Draw(t, "question")}
		if rapid.Bool().Draw(t, "stored") {
			in.Stored = &HistoryEntry{Answer: rapid.SampledFrom([]string{"hot", "yes", "nope"}).Draw(t, "storedAnswer")}
		}
		if rapid.Bool().Draw(t, "expires") {
			at := t0.Add(time.Duration(rapid.IntRange(-2, 2).Draw(t, "ttl")) * time.Minute)
			in.Question.ExpiresAt = &at
		}
		return in
	case 2:
		return Invalid{Raw: "{"}
	case 3:
		return Failed{Message: "boom"}
	case 4:
		return Answered{Answer: TextAnswer(rapid.SampledFrom([]string{"hot", "frozen", "yes", "no", "banana", "", "fr"}).Draw(t, "answer"))}
	case 5:
		return Expire{}
	case 6:
		return Decline{}
	default:
		return Cancel{}
	}
}

// Random interleavings of every input, in both modes and both hard-cap
// policies, never produce a second question, never move
// clarification_status backwards, never return to asked, never dispatch
// twice, never leave a terminal status, and never interpret more than
// initial + answer + fallback.
func TestStepProperties(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		j := planningJob(rapid.SampledFrom([]Mode{ModeManaged, ModeGate}).Draw(t, "mode"))
		j.HardCap = rapid.SampledFrom([]HardCap{HardCapFallback, HardCapFail}).Draw(t, "hardCap")
		j.Profile = rapid.SampledFrom([]string{"", "minecraft-mod"}).Draw(t, "profile")
		j.Goal = rapid.SampledFrom([]string{"make hot frozen cheese", "a hot frozen ore block", "delete it, yes"}).Draw(t, "goal")
		asks, dispatches, interprets := 0, 0, 0
		leftAsked := false
		now := t0
		for i := range rapid.IntRange(1, 30).Draw(t, "steps") {
			in := genInput(t)
			now = now.Add(time.Minute)
			before := j.Clone()
			next, fx, err := Step(j, in, now)
			if err != nil {
				if c := ErrorCode(err); c != ECONFLICT && c != EINVALID {
					t.Fatalf("step %d %T: unexpected error %v", i, in, err)
				}
				if !reflect.DeepEqual(j, before) {
					t.Fatalf("step %d: a rejected input changed the job", i)
				}
				continue
			}
			if next.ClarificationStatus.Rank() < j.ClarificationStatus.Rank() {
				t.Fatalf("step %d %T: clarification moved backwards %s -> %s", i, in, j.ClarificationStatus, next.ClarificationStatus)
			}
			if j.ClarificationStatus != ClarificationNone && j.ClarificationStatus != ClarificationAsked && next.ClarificationStatus != j.ClarificationStatus {
				t.Fatalf("step %d: final clarification status changed %s -> %s", i, j.ClarificationStatus, next.ClarificationStatus)
			}
			if j.ClarificationStatus == ClarificationAsked && next.ClarificationStatus != ClarificationAsked {
				leftAsked = true
			}
			if leftAsked && next.ClarificationStatus == ClarificationAsked {
				t.Fatalf("step %d: job returned to asked", i)
			}
			if j.Status.Terminal() {
				t.Fatalf("step %d: a terminal job accepted %T", i, in)
			}
			for _, e := range fx.Events {
				if e.Type == EventAsked {
					asks++
				}
			}
			if fx.Action == ActionAsk {
				if next.Status != StatusPending {
					t.Fatalf("step %d: ask action without a pending job", i)
				}
			}
			if fx.Dispatch {
				dispatches++
				if next.Status != StatusSuccess {
					t.Fatalf("step %d: dispatch without success", i)
				}
			}
			if fx.Interpret != nil {
				interprets++
				if next.Mode != ModeManaged {
					t.Fatalf("step %d: gate job asked askonce to interpret", i)
				}
			}
			if asks > 1 {
				t.Fatalf("step %d: a second question was asked", i)
			}
			if dispatches > 1 {
				t.Fatalf("step %d: dispatched twice", i)
			}
			if interprets > 3 {
				t.Fatalf("step %d: %d interpretations; the chain must be bounded", i, interprets)
			}
			j = next
		}
	})
}
