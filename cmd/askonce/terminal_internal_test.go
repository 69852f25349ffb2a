package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
)

func TestPrintPlanDrawsTheDAG(t *testing.T) {
	var b bytes.Buffer
	printPlan(&b, &askonce.Plan{Tasks: []askonce.Task{
		{ID: "a", Title: "A"},
		{ID: "b", Title: "B", DependsOn: []string{"a"}},
		{ID: "c", Title: "C", DependsOn: []string{"a"}},
		{ID: "d", Title: "D", DependsOn: []string{"b", "c"}},
		{ID: "x", Title: "X", DependsOn: []string{"y"}},
		{ID: "y", Title: "Y", DependsOn: []string{"x"}},
	}, Assumptions: []string{"hot"}})
	want := `└── a  A
    ├── b  B  (after a)
    └── c  C  (after a)
        └── d  D  (after b, c)
└── x  X  (after y)
    └── y  Y  (after x)
  assumption: hot
`
	if got := b.String(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestPickAnswerAndExitCodes(t *testing.T) {
	opts := []string{"hot", "frozen"}
	for in, want := range map[string]string{"1": "hot", " 2 ": "frozen", "3": "3", "tepid": "tepid", "0": "0"} {
		if got := pickAnswer(in, opts); got != want {
			t.Errorf("pickAnswer(%q) = %q, want %q", in, got, want)
		}
	}
	for err, want := range map[error]int{
		&client.Error{Status: 404, Code: "not_found"}:            exitNotFound,
		&client.Error{Status: 409, Code: "conflict"}:             exitConflict,
		&client.Error{Status: 422, Code: "invalid"}:              exitInvalid,
		&client.Error{Status: 401, Code: "unauthorized"}:         exitError,
		exitErr{code: exitJobFailed}:                             exitJobFailed,
		errors.New("dial tcp: connection refused"):               exitError,
		usageError{"bad flag"}:                                   exitUsage,
		&client.Error{Status: 422, Code: "idempotency_mismatch"}: exitError,
	} {
		if got := report(err, &bytes.Buffer{}); got != want {
			t.Errorf("report(%v) = %d, want %d", err, got, want)
		}
	}
	if got := jobOutcome(&client.JobView{Status: askonce.StatusFailed}); clientCode(got) != exitJobFailed {
		t.Errorf("failed job: %v", got)
	}
	if got := jobOutcome(&client.JobView{Status: askonce.StatusSuccess, Success: true}); got != nil {
		t.Errorf("successful job: %v", got)
	}
	if !strings.Contains(exitCodesHelp, "7  the question was left unanswered") {
		t.Error("exit codes help lacks 7")
	}
}
