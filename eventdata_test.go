package askonce

import "testing"

// Event data keep the JSON they had as maps: keys in sorted order, every
// key present, a missing slice as null, HTML characters escaped. Events
// stored before and after read the same.
func TestRule12_EventDataKeepsItsWireForm(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		data any
		want string
	}{
		{createdData{Mode: ModeManaged, Profile: "", SessionID: "s<1>"}, `{"mode":"managed","profile":"","sessionId":"s\u003c1\u003e"}`},
		{attemptData{Error: "", N: 2, Outcome: AttemptPlan, Reason: ReasonInitial}, `{"error":"","n":2,"outcome":"plan","reason":"initial"}`},
		{plannedData{Assumptions: nil, Tasks: 3}, `{"assumptions":null,"tasks":3}`},
		{plannedData{Assumptions: []string{"a & b"}, Tasks: 1}, `{"assumptions":["a \u0026 b"],"tasks":1}`},
		{resumedData{Answer: "hot"}, `{"answer":"hot"}`},
		{validationFailedData{Errors: []string{"x", "y"}}, `{"errors":["x","y"]}`},
		{declinedData{Declined: true, Source: SourceDefault}, `{"declined":true,"source":"default"}`},
		{gatedData{Assumption: "blue", Question: "Colour?"}, `{"assumption":"blue","question":"Colour?"}`},
		{askedData{Options: []string{"hot", "frozen"}, Question: "Hot or frozen?", Type: QuestionSelectOne}, `{"options":["hot","frozen"],"question":"Hot or frozen?","type":"SELECT_ONE"}`},
		{askedData{Question: "Which file?", Type: QuestionFreeText}, `{"options":null,"question":"Which file?","type":"FREE_TEXT"}`},
		{answeredData{Answer: "hot", Question: "Hot or frozen?", Source: SourceUser}, `{"answer":"hot","question":"Hot or frozen?","source":"user"}`},
		{fallbackData{Default: "", Directive: "d", Question: "q"}, `{"default":"","directive":"d","question":"q"}`},
		{failedData{Error: HardCapMessage}, `{"error":"Clarification did not resolve ambiguity. Please rephrase."}`},
		{recoveredData{From: "p1"}, `{"from":"p1"}`},
		{answeredData{Answer: "no", Question: "Delete it?", Source: SourceTimeout, Note: "Nobody answered within 24h; the default “no” was used."}, `{"answer":"no","question":"Delete it?","source":"timeout","note":"Nobody answered within 24h; the default “no” was used."}`},
		{expiredData{Note: "Nobody answered within 1h."}, `{"note":"Nobody answered within 1h."}`},
	} {
		if got := string(eventData(c.data)); got != c.want {
			t.Errorf("%T: got %s, want %s", c.data, got, c.want)
		}
	}
}
