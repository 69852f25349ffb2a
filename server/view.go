package server

import (
	"github.com/askonce/askonce"
	"github.com/askonce/askonce/api"
)

// viewOf builds the API view of a job, with its answer link while it is
// pending. NeedsClarification is left unset: only the create handler sets
// it.
func (s *Server) viewOf(j *askonce.Job) api.JobView {
	v := jobView(j)
	v.AnswerURL = s.AnswerURL(j)
	return v
}

// jobView is the view of a job's own fields.
func jobView(j *askonce.Job) api.JobView {
	v := api.JobView{
		Success:               successful(j.Status),
		JobID:                 j.ID,
		Status:                j.Status,
		Title:                 j.Title,
		Goal:                  j.Goal,
		SessionID:             j.SessionID,
		Mode:                  j.Mode,
		Profile:               j.Profile,
		Files:                 j.Files,
		Candidates:            j.Candidates,
		HardCap:               j.HardCap,
		Notify:                j.Notify,
		ClarificationStatus:   j.ClarificationStatus,
		ClarificationAnswer:   j.Answer.String(),
		ClarificationSource:   j.AnswerSource,
		AnsweredVia:           j.AnsweredVia,
		AnsweredBy:            j.AnsweredBy,
		ClarificationMemory:   j.AnswerMemory,
		Memory:                j.Memory,
		ExpiryNote:            j.ExpiryNote(),
		ClarificationUsed:     j.ClarificationUsed(),
		ClarificationResolved: j.ClarificationResolved(),
		ResolvedPrompt:        j.ResolvedPrompt,
		Plan:                  j.Plan,
		Result:                j.Result,
		Error:                 j.Error,
		Usage:                 j.Usage,
		AttemptCount:          j.AttemptCount,
		DispatchStatus:        j.Dispatch,
		DeliveryAttempts:      j.DeliveryAttempts,
		DeliveryError:         j.DeliveryError,
		CreatedAt:             j.CreatedAt,
		UpdatedAt:             j.UpdatedAt,
	}
	if j.AnsweredAt != nil {
		t := *j.AnsweredAt
		v.ClarificationAnsweredAt = &t
	}
	if q := j.Question; q != nil {
		v.ClarificationQuestion = q.Text
		v.ClarificationType = q.Type
		v.ClarificationOptions = q.Options
		v.ClarificationAllowOther = q.AllowOther
		v.ClarificationFields = q.Fields
		v.ClarificationReason = q.Reason
		v.ClarificationDefault = q.Default
		v.ClarificationExpiresAt = q.ExpiresAt
		if !q.Constraints.IsZero() {
			c := q.Constraints
			v.ClarificationConstraints = &c
		}
	}
	if !j.Answer.IsZero() {
		v.ClarificationValue = j.Answer.JSON()
	}
	return v
}

func successful(s askonce.Status) bool {
	switch s {
	case askonce.StatusFailed, askonce.StatusValidationError, askonce.StatusExpired, askonce.StatusCancelled:
		return false
	}
	return true
}
