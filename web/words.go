package web

import (
	"fmt"
	"strings"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/jobview"
)

// The pages say in words what the API says in codes (SELECT_ONE,
// scope_unclear, validation_error, hard cap fallback): the codes stay in
// the API, and a person reads these.

// reasonWords says why the interpreter asked; a reason it does not know
// is shown with spaces for its underscores.
func reasonWords(reason string) string {
	switch reason {
	case "target_file_exists":
		return "the file exists already"
	case "target_file_ambiguous":
		return "more than one file fits"
	case "target_action_ambiguous", "action_ambiguous":
		return "more than one thing could be meant"
	case "scope_unclear":
		return "the goal says two things"
	case "missing_required_info", "missing_context":
		return "something the plan needs is missing"
	}
	return strings.ReplaceAll(reason, "_", " ")
}

// statusWords is a job status as a person says it.
func statusWords(s askonce.Status) string {
	switch s {
	case askonce.StatusPending:
		return "waiting"
	case askonce.StatusSuccess:
		return "planned"
	case askonce.StatusValidationError:
		return "no valid plan"
	}
	return string(s) // planning, failed, cancelled, expired
}

// clarificationWords is a job's clarification status in words.
func clarificationWords(c askonce.ClarificationStatus) string {
	switch c {
	case askonce.ClarificationNone:
		return "not asked yet"
	case askonce.ClarificationAsked:
		return "asked, waiting for the answer"
	case askonce.ClarificationAnswered:
		return "answered"
	case askonce.ClarificationSkipped:
		// The word jobs list and the API say (one word for one state).
		return "skipped: nothing to ask"
	}
	return string(c)
}

// modeWords says who plans a job and what happens if it asks twice.
func modeWords(m askonce.Mode, hardCap askonce.HardCap) string {
	who := "askonce plans it"
	if m == askonce.ModeGate {
		who = "an outside agent plans it, askonce keeps it to one question"
	}
	if hardCap == askonce.HardCapFail {
		return who + "; asking a second time fails the job"
	}
	return who + "; asking a second time makes it go on with its own assumptions"
}

// deliveryWords is a successful job's delivery to the builder.
func deliveryWords(d askonce.DispatchStatus) string {
	switch d {
	case askonce.DispatchNoBuilder:
		return "none: no builder is set up (builders can poll GET /jobs?status=success)"
	case askonce.DispatchQueued:
		return "waiting to be delivered to the builder"
	}
	return string(d) // delivered, failed
}

// attemptReasonWords says why the interpreter was called.
func attemptReasonWords(r askonce.AttemptReason) string {
	switch r {
	case askonce.ReasonInitial:
		return "first try"
	case askonce.ReasonRetryParseError:
		return "retry: unreadable output"
	case askonce.ReasonRetryValidation:
		return "retry: invalid plan"
	case askonce.ReasonClarificationAnswer:
		return "with the answer"
	case askonce.ReasonFallback:
		return "asked again: told to go on"
	case askonce.ReasonReport:
		return "the agent's report"
	}
	return strings.ReplaceAll(string(r), "_", " ")
}

// scopeWords says who shares a job's remembered answers.
func scopeWords(s askonce.MemoryScope) string {
	switch s {
	case askonce.MemoryProject:
		return "its project"
	case askonce.MemoryTenant:
		return "every project"
	}
	return "this session"
}

// plural is n with the word for one or for many: "1 attempt", "3
// attempts".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// usageWords is what a job's interpreter calls used, or "" when they used
// nothing worth a line (no tokens, no cost): no "$0.0000". The job page
// then says "no model tokens": the rules interpreter calls no model.
func usageWords(u askonce.Usage) string {
	var parts []string
	if u.PromptTokens != 0 || u.CompletionTokens != 0 {
		parts = append(parts, fmt.Sprintf("%d prompt + %d completion tokens", u.PromptTokens, u.CompletionTokens))
	}
	if u.CostUSD > 0 {
		parts = append(parts, fmt.Sprintf("$%.4f", u.CostUSD))
	}
	return strings.Join(parts, " · ")
}

func init() {
	// Templates hold the codes as their named types or as plain strings.
	funcs["kind"] = func(t any) string { return jobview.Kind(askonce.QuestionType(fmt.Sprint(t))) }
	funcs["status"] = func(s any) string { return statusWords(askonce.Status(fmt.Sprint(s))) }
	funcs["reason"] = reasonWords
	funcs["clarification"] = clarificationWords
	funcs["mode"] = modeWords
	funcs["delivery"] = deliveryWords
	funcs["attemptReason"] = attemptReasonWords
	funcs["source"] = sourceWords
	funcs["scope"] = scopeWords
	funcs["plural"] = plural
	funcs["usage"] = usageWords
	funcs["words"] = func(code any) string { return strings.ReplaceAll(fmt.Sprint(code), "_", " ") }
}
