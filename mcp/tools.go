package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/jobview"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool names, fixed.
const (
	ToolPlan        = "plan"
	ToolAskUser     = "ask_user"
	ToolReportPlan  = "report_plan"
	ToolAnswer      = "answer"
	ToolGetJob      = "get_job"
	ToolListPending = "list_pending"
	// JobTemplate is the resource template of a job as JSON.
	JobTemplate = "askonce://jobs/{id}"
)

const askUserDescription = `Ask the user ONE clarifying question. You get exactly one question per job: the first call asks the user (action "ask") and returns their answer with the resolved prompt (action "resume"). If the question is still unanswered you get "wait". Any later call returns "proceed" with a directive and asks nobody: do not ask again, proceed with reasonable assumptions and document them. A repeated question of the same session is answered from history. Calls attach to the session's open job until report_plan closes it; pass a new "task" key to start a new job for another task.`

func ptr[T any](v T) *T { return &v }

func (s *srv) addTools(server *sdk.Server) {
	sdk.AddTool(server, &sdk.Tool{
		Name:        ToolPlan,
		Title:       "Plan a goal (asks the user at most once)",
		Description: "Turn a natural-language goal into a validated plan (a DAG of tasks). If the goal is ambiguous, askonce asks the user one typed question through this client and plans with the answer; it never asks a second time. Returns the job: status, title, plan or error.",
		Annotations: &sdk.ToolAnnotations{Title: "Plan a goal", DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, s.plan)
	sdk.AddTool(server, &sdk.Tool{
		Name:        ToolAskUser,
		Title:       "Ask the user one question per job",
		Description: askUserDescription,
		Annotations: &sdk.ToolAnnotations{Title: "Ask the user (once per job)", DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, s.askUser)
	sdk.AddTool(server, &sdk.Tool{
		Name:        ToolReportPlan,
		Title:       "Report your plan",
		Description: "Report the plan you made for an ask_user job. The plan is validated (unique task ids, dependencies that exist, no cycles); an invalid plan is an error listing every problem and changes nothing. A valid one closes the job.",
		Annotations: &sdk.ToolAnnotations{Title: "Report a plan", DestructiveHint: ptr(false), IdempotentHint: false, OpenWorldHint: ptr(false)},
	}, s.reportPlan)
	sdk.AddTool(server, &sdk.Tool{
		Name:        ToolAnswer,
		Title:       "Answer a pending question",
		Description: "Pass the user's answer to a job's pending question (for clients that cannot show questions themselves), typed as the question asks: text, a number, true or false, a list of options, or for a question with fields an object of field values ({\"environment\": \"staging\", \"replicas\": 3}). An answer the question does not take is an error naming each bad field and what it accepts; the question stays pending.",
		Annotations: &sdk.ToolAnnotations{Title: "Answer a question", DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, s.answer)
	sdk.AddTool(server, &sdk.Tool{
		Name:        ToolGetJob,
		Title:       "Get a job",
		Description: "Return a job: status, question, answer, plan or error.",
		Annotations: &sdk.ToolAnnotations{Title: "Get a job", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.getJob)
	sdk.AddTool(server, &sdk.Tool{
		Name:        ToolListPending,
		Title:       "List pending questions",
		Description: "List the jobs whose question waits for the user's answer, newest first, optionally of one session.",
		Annotations: &sdk.ToolAnnotations{Title: "List pending questions", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.listPending)
	server.AddResourceTemplate(&sdk.ResourceTemplate{
		URITemplate: JobTemplate,
		Name:        "job",
		Title:       "askonce job",
		Description: "An askonce job as JSON.",
		MIMEType:    "application/json",
	}, s.readJob)
}

// jobOut is the final result of a tool that returns a job.
func (s *srv) jobOut(j *askonce.Job, note string) (*sdk.CallToolResult, *JobResult, error) {
	url := s.b.AnswerURL(j)
	r := jobview.JobOf(j, url)
	text := summary(j, url)
	if note != "" {
		text = note + "\n" + text
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, &r, nil
}

// plan is the plan tool: managed mode.
func (s *srv) plan(ctx context.Context, req *sdk.CallToolRequest, args PlanArgs) (*sdk.CallToolResult, *JobResult, error) {
	tenant := s.tenantOf(req)
	if err := callerOf(req).AllowRecipients(args.Notify); err != nil {
		return nil, nil, toolError(err)
	}
	first := func() (*sdk.CallToolResult, *JobResult, error) {
		j, err := s.b.Create(ctx, askonce.CreateRequest{
			TenantID:   tenant,
			SessionID:  s.sessionOf(req, args.SessionID),
			Goal:       args.Goal,
			Profile:    args.Profile,
			Files:      args.Files,
			Candidates: args.Candidates,
			HardCap:    askonce.HardCap(args.HardCap),
			Memory:     s.memoryOf(ctx, req, args.Project),
			Notify:     args.Notify,
		})
		if err != nil {
			return nil, nil, err
		}
		return s.planAsk(ctx, req, tenant, j, 0, "")
	}
	resume := func(st state, j *askonce.Job, er *sdk.ElicitResult) (*sdk.CallToolResult, *JobResult, error) {
		return s.planResume(ctx, req, tenant, st, j, er)
	}
	return elicitRounds(ctx, s, req, tenant, first, resume)
}

// elicitRounds runs one call of a tool that may put a question to the
// user: a retry carrying requestState (2026-07-28) resumes the round it
// names, a first call runs first; rounds an older client needs after that
// are elicited here through s.rounds, each handled by resume.
func elicitRounds[O any](ctx context.Context, s *srv, req *sdk.CallToolRequest, tenant string,
	first func() (*sdk.CallToolResult, O, error),
	resume func(state, *askonce.Job, *sdk.ElicitResult) (*sdk.CallToolResult, O, error),
) (*sdk.CallToolResult, O, error) {
	var zero O
	var (
		res *sdk.CallToolResult
		out O
		err error
	)
	if req.Params.RequestState != "" {
		st, j, err := s.decodeState(ctx, tenant, req.Params.RequestState)
		if err != nil {
			return nil, zero, toolError(err)
		}
		er, err := inputResponse(req)
		if err != nil {
			return nil, zero, err
		}
		res, out, err = resume(st, j, er)
		if err != nil {
			return nil, zero, toolError(err)
		}
	} else if res, out, err = first(); err != nil {
		return nil, zero, toolError(err)
	}
	if res.InputRequests != nil {
		res, err = s.rounds(ctx, req, tenant, res, func(st state, j *askonce.Job, er *sdk.ElicitResult) (*sdk.CallToolResult, error) {
			r, o, err := resume(st, j, er)
			out = o
			return r, err
		})
		if err != nil {
			return nil, zero, toolError(err)
		}
	}
	return res, out, nil
}

// planAsk puts a pending managed job's question to the user, as the
// client can; a job that is not pending, or a client that cannot
// elicit, gets the job.
func (s *srv) planAsk(ctx context.Context, req *sdk.CallToolRequest, tenant string, j *askonce.Job, tries int, problem string) (*sdk.CallToolResult, *JobResult, error) {
	if !isPending(j) {
		return s.jobOut(j, "")
	}
	switch elicitMode(req) {
	case modeForm:
		return s.inputRequired(tenant, state{Job: j.ID, Tries: tries, Mode: modeForm}, formRequest(j, problem)), nil, nil
	case modeURL:
		if url := s.b.AnswerURL(j); url != "" {
			return s.inputRequired(tenant, state{Job: j.ID, Tries: tries, Mode: modeURL}, urlRequest(j, url)), nil, nil
		}
	}
	return s.jobOut(j, "")
}

// planResume applies the user's response to a managed job's question.
func (s *srv) planResume(ctx context.Context, req *sdk.CallToolRequest, tenant string, st state, j *askonce.Job, er *sdk.ElicitResult) (*sdk.CallToolResult, *JobResult, error) {
	if !isPending(j) {
		// Answered elsewhere (the inbox, the answer tool, the answer
		// link of a URL elicitation) meanwhile.
		s.observe(st.Mode, outcome(er))
		j, err := s.waitWhile(ctx, tenant, j, pendingOrPlanning)
		if err != nil {
			return nil, nil, err
		}
		return s.jobOut(j, "")
	}
	var err error
	next := j
	switch er.Action {
	case "accept":
		if st.Mode == modeURL {
			s.observe(modeURL, "accept")
			if next, err = s.waitWhile(ctx, tenant, j, pendingOrPlanning); err != nil {
				return nil, nil, err
			}
			return s.jobOut(next, "")
		}
		next, err = s.b.Act(answering(ctx, req), askonce.Act{Do: askonce.ActAnswer, Job: j, Answer: jobview.AnswerFrom(j.Question, er.Content)})
		if askonce.ErrorCode(err) == askonce.EINVALID {
			s.observe(modeForm, "invalid")
			if st.Tries+1 > MaxReElicit {
				return s.jobOut(j, fmt.Sprintf("The answer was not accepted (%s); the question stays pending.", problem(err)))
			}
			return s.planAsk(ctx, req, tenant, j, st.Tries+1, problem(err))
		}
		s.observe(modeForm, "accept")
	case "decline":
		s.observe(st.Mode, "decline")
		next, err = s.b.Act(answering(ctx, req), askonce.Act{Do: askonce.ActDecline, Job: j})
	default:
		s.observe(st.Mode, "cancel")
		next, err = s.b.Act(ctx, askonce.Act{Do: askonce.ActCancel, Job: j})
	}
	if askonce.ErrorCode(err) == askonce.ECONFLICT {
		// Settled elsewhere meanwhile: the conflict carries the job as
		// stored, else it is read.
		if cur := conflictJob(err); cur != nil {
			next, err = cur, nil
		} else {
			next, err = s.b.Get(ctx, tenant, j.ID)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	return s.jobOut(next, "")
}

// conflictJob is the job an ECONFLICT error carries, or nil.
func conflictJob(err error) *askonce.Job {
	var ae *askonce.Error
	if errors.As(err, &ae) && ae.Code == askonce.ECONFLICT {
		return ae.Job
	}
	return nil
}

// outcome is the metric label of a response's action.
func outcome(er *sdk.ElicitResult) string {
	switch er.Action {
	case "accept", "decline":
		return er.Action
	}
	return "cancel"
}

// askUser is the ask_user tool: gate mode.
func (s *srv) askUser(ctx context.Context, req *sdk.CallToolRequest, args AskArgs) (*sdk.CallToolResult, *AskResult, error) {
	tenant := s.tenantOf(req)
	q := args.question()
	// A question that cannot be shown is refused before any job opens.
	check := q.Clone()
	if err := check.Normalize(); err != nil {
		return nil, nil, toolError(err)
	}
	if err := callerOf(req).AllowRecipients(args.Notify); err != nil {
		return nil, nil, toolError(err)
	}
	first := func() (*sdk.CallToolResult, *AskResult, error) {
		return s.askFirst(ctx, req, tenant, q, args)
	}
	resume := func(st state, j *askonce.Job, er *sdk.ElicitResult) (*sdk.CallToolResult, *AskResult, error) {
		return s.askResume(ctx, req, tenant, q, st, j, er)
	}
	return elicitRounds(ctx, s, req, tenant, first, resume)
}

// askFirst finds the call's gate job and reports the question to it.
func (s *srv) askFirst(ctx context.Context, req *sdk.CallToolRequest, tenant string, q askonce.Question, args AskArgs) (*sdk.CallToolResult, *AskResult, error) {
	j, err := s.gateJob(ctx, req, tenant, args)
	if err != nil {
		return nil, nil, err
	}
	if _, told := s.proceeded.Load(j.ID); told || capped(j) {
		return s.askOut(&askonce.ReportResult{Action: askonce.ActionProceed, Directive: askonce.FallbackDirective, Default: q.Default, Job: j})
	}
	rr, err := s.b.Report(ctx, tenant, j.ID, askonce.Report{Question: &q, Job: j})
	if err != nil {
		return nil, nil, err
	}
	switch rr.Action {
	case askonce.ActionAsk:
		return s.askElicit(req, tenant, rr, 0, "")
	case askonce.ActionProceed:
		s.proceeded.Store(j.ID, true)
	}
	return s.askOut(rr)
}

// capped reports whether a gate job's one question is spent beyond what
// the engine's hard cap hands out: the fallback was granted and the agent
// told so. Another report would fail the job; ask_user answers proceed
// again instead, and asks nobody.
func capped(j *askonce.Job) bool {
	return j.Status.Terminal() || (j.FallbackUsed && (j.AnswerDelivered || j.ClarificationStatus == askonce.ClarificationSkipped))
}

// gateJob is the job an ask_user call belongs to: the named one, else the
// session's open gate job (of the same task key when one is given), else
// a new gate job.
func (s *srv) gateJob(ctx context.Context, req *sdk.CallToolRequest, tenant string, args AskArgs) (*askonce.Job, error) {
	if id := strings.TrimSpace(args.JobID); id != "" {
		j, err := s.b.Get(ctx, tenant, id)
		if err != nil {
			return nil, err
		}
		if j.Mode != askonce.ModeGate {
			return nil, askonce.Errorf(askonce.ECONFLICT, "job %s is planned by askonce (the plan tool); ask_user takes gate jobs only", j.ID)
		}
		return j, nil
	}
	session := s.sessionOf(req, args.SessionID)
	task := strings.TrimSpace(args.Task)
	s.attachMu.Lock()
	defer s.attachMu.Unlock()
	page, err := s.b.List(ctx, tenant, askonce.JobFilter{SessionID: session, Limit: 100})
	if err != nil {
		return nil, err
	}
	for _, j := range page.Jobs {
		if j.Mode == askonce.ModeGate && !j.Status.Terminal() && (task == "" || j.Goal == task) {
			return j, nil
		}
	}
	goal := task
	if goal == "" {
		goal = args.Question
	}
	return s.b.Create(ctx, askonce.CreateRequest{TenantID: tenant, SessionID: session, Goal: goal, Mode: askonce.ModeGate, Memory: s.memoryOf(ctx, req, args.Project), Notify: args.Notify})
}

// askElicit puts a gate job's pending question to the user, as the client
// can; a client that cannot elicit gets the ask result with the answer
// link.
func (s *srv) askElicit(req *sdk.CallToolRequest, tenant string, rr *askonce.ReportResult, tries int, problem string) (*sdk.CallToolResult, *AskResult, error) {
	j := rr.Job
	switch elicitMode(req) {
	case modeForm:
		return s.inputRequired(tenant, state{Job: j.ID, Tries: tries, Mode: modeForm}, formRequest(j, problem)), nil, nil
	case modeURL:
		if url := s.b.AnswerURL(j); url != "" {
			return s.inputRequired(tenant, state{Job: j.ID, Tries: tries, Mode: modeURL}, urlRequest(j, url)), nil, nil
		}
	}
	return s.askOut(rr)
}

// askResume applies the user's response to a gate job's question and
// reports the question again, which hands the answer over (resume).
func (s *srv) askResume(ctx context.Context, req *sdk.CallToolRequest, tenant string, q askonce.Question, st state, j *askonce.Job, er *sdk.ElicitResult) (*sdk.CallToolResult, *AskResult, error) {
	if j.Mode != askonce.ModeGate {
		return nil, nil, errBadState
	}
	// j is the job as stored (read with the state, or waited for) until
	// an act changes it; the act returns the job it left.
	var err error
	if !isPending(j) {
		s.observe(st.Mode, outcome(er))
	} else {
		act := askonce.Act{Job: j}
		switch er.Action {
		case "accept":
			if st.Mode == modeURL {
				s.observe(modeURL, "accept")
				if j, err = s.waitWhile(ctx, tenant, j, isPending); err != nil {
					return nil, nil, err
				}
				break
			}
			act.Do, act.Answer = askonce.ActAnswer, jobview.AnswerFrom(j.Question, er.Content)
		case "decline":
			s.observe(st.Mode, "decline")
			act.Do = askonce.ActDecline
		default:
			s.observe(st.Mode, "cancel")
			act.Do = askonce.ActCancel
		}
		if act.Do != "" {
			actx := ctx
			if act.Do != askonce.ActCancel {
				actx = answering(ctx, req)
			}
			next, err := s.b.Act(actx, act)
			if act.Do == askonce.ActAnswer && askonce.ErrorCode(err) != askonce.EINVALID {
				s.observe(modeForm, "accept")
			}
			switch {
			case err == nil:
				j = next
			case askonce.ErrorCode(err) == askonce.EINVALID && act.Do == askonce.ActAnswer:
				s.observe(modeForm, "invalid")
				if st.Tries+1 <= MaxReElicit {
					return s.askElicit(req, tenant, &askonce.ReportResult{Action: askonce.ActionAsk, Question: j.Question, Job: j}, st.Tries+1, problem(err))
				}
				// Left pending: the report below answers wait.
			case askonce.ErrorCode(err) == askonce.ECONFLICT:
				// Settled elsewhere meanwhile.
				if j = conflictJob(err); j == nil {
					if j, err = s.b.Get(ctx, tenant, act.Job.ID); err != nil {
						return nil, nil, err
					}
				}
			default:
				return nil, nil, err
			}
		}
	}
	if j.Status.Terminal() {
		return s.askOut(&askonce.ReportResult{Action: askonce.ActionFail, Job: j})
	}
	rr, err := s.b.Report(ctx, tenant, j.ID, askonce.Report{Question: &q, Job: j})
	if err != nil {
		return nil, nil, err
	}
	return s.askOut(rr)
}

// askOut is the final result of ask_user and report_plan.
func (s *srv) askOut(rr *askonce.ReportResult) (*sdk.CallToolResult, *AskResult, error) {
	j := rr.Job
	url := s.b.AnswerURL(j)
	out := &AskResult{
		Action:         string(rr.Action),
		JobID:          j.ID,
		Question:       jobview.QuestionOf(rr.Question),
		Answer:         rr.Answer,
		ResolvedPrompt: rr.ResolvedPrompt,
		Directive:      rr.Directive,
		Default:        rr.Default,
		AnswerURL:      url,
		Job:            jobview.JobOf(j, url),
	}
	if len(rr.Value) > 0 {
		out.Value = rr.Value
	}
	var text string
	switch rr.Action {
	case askonce.ActionAsk:
		text = fmt.Sprintf("Job %s asks the user: %s", j.ID, rr.Question.Text)
		if len(rr.Question.Options) > 0 {
			text += " (" + strings.Join(rr.Question.Options, " / ") + ")"
		}
		if url != "" {
			text += "\nThe user can answer at " + url
		}
		text += "\nPut the question to the user, pass the reply to the answer tool, then call ask_user again."
	case askonce.ActionWait:
		text = fmt.Sprintf("Job %s's question is still unanswered: %s\nWait for the user's answer; do not ask another question.", j.ID, j.Question.Text)
		if url != "" {
			text += "\nThe user can answer at " + url
		}
	case askonce.ActionResume:
		text = fmt.Sprintf("The user answered: %s\nContinue with this prompt:\n%s", rr.Answer, rr.ResolvedPrompt)
		if rr.Answer == "" {
			text = "The user declined to answer.\nContinue with the goal: " + j.Goal
		}
		if rr.Directive != "" {
			text += "\n" + rr.Directive
		}
	case askonce.ActionProceed:
		text = "This job's one question was already used; nobody was asked. " + rr.Directive
		if rr.Default != "" {
			text += "\nUse the default: " + rr.Default
		}
	case askonce.ActionDone:
		text = summary(j, url)
	default:
		text = summary(j, url)
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}

// reportPlan is the report_plan tool: the gate agent's plan closes its
// job.
func (s *srv) reportPlan(ctx context.Context, req *sdk.CallToolRequest, args ReportPlanArgs) (*sdk.CallToolResult, *AskResult, error) {
	p, err := args.Plan.plan()
	if err != nil {
		return nil, nil, toolError(err)
	}
	rr, err := s.b.Report(ctx, s.tenantOf(req), args.JobID, askonce.Report{Plan: p, Title: args.Plan.Title})
	if err != nil {
		return nil, nil, toolError(err)
	}
	return s.askOut(rr)
}

// answer is the answer tool.
func (s *srv) answer(ctx context.Context, req *sdk.CallToolRequest, args AnswerArgs) (*sdk.CallToolResult, *JobResult, error) {
	a, err := args.answer()
	if err != nil {
		return nil, nil, toolError(err)
	}
	j, err := s.b.Act(answering(ctx, req), askonce.Act{Do: askonce.ActAnswer, TenantID: s.tenantOf(req), ID: args.JobID, Answer: a})
	if err != nil {
		return nil, nil, toolError(err)
	}
	return s.jobOut(j, "")
}

// getJob is the get_job tool.
func (s *srv) getJob(ctx context.Context, req *sdk.CallToolRequest, args JobArgs) (*sdk.CallToolResult, *JobResult, error) {
	j, err := s.b.Get(ctx, s.tenantOf(req), args.JobID)
	if err != nil {
		return nil, nil, toolError(err)
	}
	return s.jobOut(j, "")
}

// listPending is the list_pending tool.
func (s *srv) listPending(ctx context.Context, req *sdk.CallToolRequest, args ListArgs) (*sdk.CallToolResult, *ListResult, error) {
	page, err := s.b.List(ctx, s.tenantOf(req), askonce.JobFilter{Status: askonce.StatusPending, SessionID: strings.TrimSpace(args.SessionID), Limit: 100})
	if err != nil {
		return nil, nil, toolError(err)
	}
	out := &ListResult{Jobs: []JobResult{}}
	var b strings.Builder
	fmt.Fprintf(&b, "%d pending questions.", len(page.Jobs))
	for _, j := range page.Jobs {
		url := s.b.AnswerURL(j)
		out.Jobs = append(out.Jobs, jobview.JobOf(j, url))
		fmt.Fprintf(&b, "\n- %s: %s", j.ID, j.Question.Text)
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: b.String()}}}, out, nil
}

// readJob serves askonce://jobs/{id}.
func (s *srv) readJob(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := strings.CutPrefix(uri, "askonce://jobs/")
	if !ok || id == "" || strings.Contains(id, "/") {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	tenant := s.tenant
	if req.Extra != nil && req.Extra.TokenInfo != nil && req.Extra.TokenInfo.UserID != "" {
		tenant = req.Extra.TokenInfo.UserID
	}
	j, err := s.b.Get(ctx, tenant, id)
	if askonce.ErrorCode(err) == askonce.ENOTFOUND {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	if askonce.ErrorCode(err) == askonce.EUNAVAILABLE {
		return nil, &jsonrpc.Error{Code: CodeUnavailable, Message: unavailable(err)}
	}
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: askonce.ErrorMessage(err)}
	}
	b, err := json.MarshalIndent(jobview.JobOf(j, s.b.AnswerURL(j)), "", "  ")
	if err != nil {
		return nil, err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}
