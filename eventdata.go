package askonce

import "encoding/json"

// The Data of each event type. The fields are in the order of their JSON
// keys, as encoding/json wrote them when the data were maps, so that the
// events stored before and after read the same; marshalling a struct
// costs a fraction of a map's.

type createdData struct {
	Mode      Mode   `json:"mode"`
	Profile   string `json:"profile"`
	SessionID string `json:"sessionId"`
}

type attemptData struct {
	Error   string         `json:"error"`
	N       int            `json:"n"`
	Outcome AttemptOutcome `json:"outcome"`
	Reason  AttemptReason  `json:"reason"`
}

type plannedData struct {
	Assumptions []string `json:"assumptions"`
	Tasks       int      `json:"tasks"`
}

type resumedData struct {
	Answer string `json:"answer"`
}

type validationFailedData struct {
	Errors []string `json:"errors"`
}

// declinedData is the answered event of a declined question without a
// default.
type declinedData struct {
	Declined bool   `json:"declined"`
	Source   Source `json:"source"`
	Via      string `json:"answeredVia,omitempty"`
	By       string `json:"answeredBy,omitempty"`
}

type gatedData struct {
	Assumption string `json:"assumption"`
	Question   string `json:"question"`
}

type askedData struct {
	Options  []string     `json:"options"`
	Question string       `json:"question"`
	Type     QuestionType `json:"type"`
	// Fields are the question's fields, when it has them.
	Fields []QuestionField `json:"fields,omitempty"`
	// Filled are the fields of the interpreter's question answered
	// before it was asked (not shown, merged into the answer), by name.
	Filled map[string]filledValue `json:"filled,omitempty"`
}

// filledValue is the value of a field filled before asking and where it
// came from (history or resolver).
type filledValue struct {
	Value  string `json:"value"`
	Source Source `json:"source"`
}

// answeredData is the data of answered and auto_resolved events.
type answeredData struct {
	// Answer is the answer as a person reads it; the job holds it
	// typed.
	Answer   string     `json:"answer"`
	Memory   *MemoryRef `json:"memory,omitempty"`
	Question string     `json:"question"`
	Source   Source     `json:"source"`
	// Via and By are who answered (Answerer), when a person did.
	Via string `json:"answeredVia,omitempty"`
	By  string `json:"answeredBy,omitempty"`
	// Note says plainly that the default answered because nobody did
	// (Job.ExpiryNote), on the answered event of an expired question.
	Note string `json:"note,omitempty"`
}

// expiredData is the data of the expired event: Note says nobody
// answered and there was no default (Job.ExpiryNote).
type expiredData struct {
	Note string `json:"note,omitempty"`
}

type fallbackData struct {
	Default   string `json:"default"`
	Directive string `json:"directive"`
	Question  string `json:"question"`
}

type failedData struct {
	Error string `json:"error"`
}

type recoveredData struct {
	From string `json:"from"`
}

// eventData returns d as an event's Data. The data types above hold
// strings, numbers and slices of strings, which always marshal.
func eventData(d any) json.RawMessage {
	b, _ := json.Marshal(d)
	return b
}
