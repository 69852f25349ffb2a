package slack

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	slackapi "github.com/slack-go/slack"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/jobview"
)

// The action ids of the question message's controls and of the modal.
const (
	actionOption  = "option"  // a button of one option; value "o:<index>"
	actionSelect  = "select"  // the static select of more than maxButtons options
	actionModal   = "modal"   // Other… / Answer… / Choose a file…: opens the modal
	actionDecline = "decline" // use the default
	actionCancel  = "cancel"
	actionLink    = "link" // the answer page; Slack reports the click, we ignore it

	// rememberBlock and rememberAction name the "Don't remember this
	// answer" checkbox, in the message and in the modal. Its state comes
	// with the click (block_actions state.values) or the submission;
	// ticking it alone is reported by Slack and ignored.
	rememberBlock  = "askonce_remember"
	rememberAction = "dont_remember"
	rememberValue  = "1"

	// inputBlock and inputAction name the modal's one input.
	inputBlock  = "answer"
	inputAction = "answer"
	// modalCallback is the modal's callback_id.
	modalCallback = "askonce_answer"
)

// maxButtons is the most options shown as buttons; more get a select.
const maxButtons = 5

// maxSelectOptions is Slack's limit of a static select's options; a
// TARGET_FILE question with more files takes the path as text.
const maxSelectOptions = 100

// jobRef is the tenant and id of a job as the message's block_id and the
// modal's private_metadata carry them: "askonce|<tenant>|<id>". Both come
// back only in requests signed by Slack.
func jobRef(tenant, id string) string { return "askonce|" + tenant + "|" + id }

func parseJobRef(s string) (tenant, id string, ok bool) {
	rest, ok := strings.CutPrefix(s, "askonce|")
	if !ok {
		return "", "", false
	}
	tenant, id, ok = strings.Cut(rest, "|")
	return tenant, id, ok && tenant != "" && id != ""
}

// optionValue and optionIndex carry an option by its index: Slack caps
// a select option's value at 150 characters, an option may be longer.
func optionValue(i int) string { return "o:" + strconv.Itoa(i) }

func optionIndex(v string, n int) (int, bool) {
	s, ok := strings.CutPrefix(v, "o:")
	i, err := strconv.Atoi(s)
	return i, ok && err == nil && i >= 0 && i < n
}

// Escape makes text safe inside mrkdwn: Slack reads &, < and > as the
// start of entities, links and mentions (<!channel>, <@U…>, <http://…|…>).
func Escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// clip cuts s to at most n characters (Slack counts characters), with an
// ellipsis when cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func plain(s string, n int) *slackapi.TextBlockObject {
	return slackapi.NewTextBlockObject(slackapi.PlainTextType, clip(s, n), false, false)
}

func mrkdwn(s string) *slackapi.TextBlockObject {
	return slackapi.NewTextBlockObject(slackapi.MarkdownType, clip(s, 3000), false, true)
}

// header is the job's title and goal, shown above the question and kept
// when the message is settled. User text goes in plain_text, which Slack
// never formats.
func header(j *askonce.Job) []slackapi.Block {
	title := j.Title
	if title == "" {
		title = "askonce job"
	}
	return []slackapi.Block{
		slackapi.NewHeaderBlock(plain(title, 150)),
		slackapi.NewSectionBlock(plain(j.Goal, 3000), nil, nil),
	}
}

// QuestionBlocks is the message of a pending job: its title and goal, the
// question, the control of its type, Decline and Cancel, and the expiry.
// answerURL, when set, adds a button to the answer page.
func QuestionBlocks(j *askonce.Job, answerURL string) []slackapi.Block {
	q := j.Question
	if q == nil {
		return header(j)
	}
	blocks := header(j)
	blocks = append(blocks, slackapi.NewSectionBlock(plain("❓ "+q.Text, 3000), nil, nil))
	var els []slackapi.BlockElement
	switch {
	case q.Type == askonce.QuestionConfirm || (q.Type == askonce.QuestionSelectOne && len(q.Options) <= maxButtons):
		for i := range q.Options {
			b := slackapi.NewButtonBlockElement(actionOption+"_"+strconv.Itoa(i), optionValue(i), plain(q.OptionTitle(i), 75))
			if i == 0 && q.Type == askonce.QuestionConfirm {
				b = b.WithStyle(slackapi.StylePrimary)
			}
			els = append(els, b)
		}
	case q.Type == askonce.QuestionSelectOne:
		opts := make([]*slackapi.OptionBlockObject, 0, min(len(q.Options), maxSelectOptions))
		for i := range q.Options[:min(len(q.Options), maxSelectOptions)] {
			opts = append(opts, slackapi.NewOptionBlockObject(optionValue(i), plain(q.OptionTitle(i), 75), nil))
		}
		els = append(els, slackapi.NewOptionsSelectBlockElement(slackapi.OptTypeStatic, plain("Choose…", 75), actionSelect, opts...))
	}
	switch {
	case q.Type == askonce.QuestionFreeText || q.Type == askonce.QuestionNumber:
		els = append(els, slackapi.NewButtonBlockElement(actionModal, "", plain("Answer…", 75)).WithStyle(slackapi.StylePrimary))
	case q.Type == askonce.QuestionSelectMany:
		els = append(els, slackapi.NewButtonBlockElement(actionModal, "", plain("Choose…", 75)).WithStyle(slackapi.StylePrimary))
	case q.Type == askonce.QuestionTargetFile:
		els = append(els, slackapi.NewButtonBlockElement(actionModal, "", plain("Choose a file…", 75)).WithStyle(slackapi.StylePrimary))
	case q.AllowOther:
		els = append(els, slackapi.NewButtonBlockElement(actionModal, "", plain("Other…", 75)))
	}
	decline := "Decline"
	if q.Default != "" {
		decline = "Decline (use “" + q.Default + "”)"
	}
	els = append(els, slackapi.NewButtonBlockElement(actionDecline, "", plain(decline, 75)))
	cancel := slackapi.NewButtonBlockElement(actionCancel, "", plain("Cancel job", 75)).WithStyle(slackapi.StyleDanger)
	cancel.Confirm = slackapi.NewConfirmationBlockObject(plain("Cancel the job?", 100), plain("The job ends cancelled, with no plan.", 300), plain("Cancel job", 30), plain("Keep it", 30))
	els = append(els, cancel)
	if answerURL != "" {
		link := slackapi.NewButtonBlockElement(actionLink, "", plain("Open answer page", 75))
		link.URL = answerURL
		els = append(els, link)
	}
	if cb := rememberBox(j, false); cb != nil {
		blocks = append(blocks, slackapi.NewActionBlock(rememberBlock, cb))
	}
	blocks = append(blocks, slackapi.NewActionBlock(jobRef(j.TenantID, j.ID), els...))
	var notes []string
	if q.Default != "" {
		notes = append(notes, "Default: "+Escape(clip(q.Default, 200)))
	}
	if q.ExpiresAt != nil {
		notes = append(notes, fmt.Sprintf("Expires <!date^%d^{date_short_pretty} at {time}|%s>", q.ExpiresAt.Unix(), q.ExpiresAt.UTC().Format(time.RFC3339)))
	}
	if len(notes) > 0 {
		blocks = append(blocks, slackapi.NewContextBlock("", mrkdwn(strings.Join(notes, " · "))))
	}
	return blocks
}

// Settled says how the job's question ended, in mrkdwn, for the
// settled message, with who answered and where (Job.AnsweredVia,
// AnsweredBy).
func Settled(j *askonce.Job) string {
	who := ""
	if w := Who(j); w != "" {
		who = " " + w
	}
	switch {
	case j.Status == askonce.StatusCancelled:
		return "🚫 Cancelled; the question was not answered."
	case j.ExpiryNote() != "":
		// Nobody answered: the default answered, or the job expired.
		return "⌛ " + Escape(clip(j.ExpiryNote(), 600))
	case j.AnswerSource == askonce.SourceDefault && !j.Answer.IsZero():
		return "↩️ Declined" + who + "; the default “" + Escape(clip(j.AnswerText(), 500)) + "” was used."
	case j.AnswerSource == askonce.SourceDefault:
		return "↩️ Declined" + who + "; the job went on without an answer."
	case j.ClarificationStatus == askonce.ClarificationAnswered:
		return "✅ Answered “" + Escape(clip(j.AnswerText(), 500)) + "”" + who + "."
	}
	return "The question is no longer waiting for an answer."
}

// Who says, in mrkdwn, who answered the job's question and where: "by
// <@U…> in Slack", "on the answer page", "by Claude over MCP"; "" when
// no one is recorded.
func Who(j *askonce.Job) string {
	by := ""
	if j.AnsweredBy != "" {
		by = "by " + Escape(clip(j.AnsweredBy, 100)) + " "
	}
	switch j.AnsweredVia {
	case askonce.ViaSlack:
		if j.AnsweredBy != "" && slackUserID(j.AnsweredBy) {
			return "by <@" + j.AnsweredBy + "> in Slack"
		}
		return by + "in Slack"
	case askonce.ViaWeb:
		return by + "on the answer page"
	case askonce.ViaEmailLink:
		return by + "on the answer page, from the email"
	case askonce.ViaHTTP:
		return by + "over the HTTP API"
	case askonce.ViaMCP:
		return by + "over MCP"
	case askonce.ViaA2A:
		return by + "over A2A"
	case askonce.ViaTerminal:
		return by + "in a terminal"
	case "":
		return ""
	}
	return by + "via " + Escape(j.AnsweredVia)
}

// slackUserID reports whether s is safe to put in a mention: a user id.
func slackUserID(s string) bool {
	r := askonce.Recipients{Slack: &askonce.SlackRecipient{User: s}}
	return r.Validate() == nil
}

// SettledBlocks is the message of a job that stopped pending: its title
// and goal, the question and how it ended, with no controls.
func SettledBlocks(j *askonce.Job) []slackapi.Block {
	blocks := header(j)
	if j.Question != nil {
		blocks = append(blocks, slackapi.NewSectionBlock(plain("❓ "+j.Question.Text, 3000), nil, nil))
	}
	return append(blocks, slackapi.NewSectionBlock(mrkdwn(Settled(j)), nil, nil))
}

// Outcome is the thread reply of a job that ended: the plan's title or
// the exact error.
func Outcome(j *askonce.Job) string {
	switch {
	case j.Status == askonce.StatusSuccess && j.Plan != nil:
		return "📋 Planned: " + Escape(clip(j.Plan.Title, 500)) + " (" + jobview.Tasks(len(j.Plan.Tasks)) + ")"
	case j.Status == askonce.StatusSuccess:
		return "📋 Planned: " + Escape(clip(j.Title, 500))
	case j.Error != "":
		return "❌ " + string(j.Status) + ": " + Escape(clip(j.Error, 2000))
	}
	return "Ended " + string(j.Status) + "."
}

// rememberedBy says who gets a person's answer to j without asking, ""
// when the answer stays in its session (no project or tenant memory).
func rememberedBy(j *askonce.Job) string {
	if m := j.Memory; m != nil {
		switch m.Scope {
		case askonce.MemoryProject:
			return "the other agents of project “" + m.Project + "”"
		case askonce.MemoryTenant:
			return "every agent of this tenant"
		}
	}
	return ""
}

// rememberBox is the "Don't remember this answer" checkbox of a job
// whose answer would be remembered beyond its session, ticked when
// checked; nil for a session job, where it would change nothing.
func rememberBox(j *askonce.Job, checked bool) *slackapi.CheckboxGroupsBlockElement {
	by := rememberedBy(j)
	if by == "" {
		return nil
	}
	opt := slackapi.NewOptionBlockObject(rememberValue, plain("Don't remember this answer", 75), plain("Otherwise "+by+" get it without asking.", 75))
	cb := slackapi.NewCheckboxGroupsBlockElement(rememberAction, opt)
	if checked {
		cb.InitialOptions = []*slackapi.OptionBlockObject{opt}
	}
	return cb
}

// dontRemember reports whether the checkbox is ticked in values (a
// click's or a submission's state.values).
func dontRemember(values map[string]map[string]slackapi.BlockAction) bool {
	for _, o := range values[rememberBlock][rememberAction].SelectedOptions {
		if o.Value == rememberValue {
			return true
		}
	}
	return false
}

// modal is the view that takes a free-text answer, an answer outside the
// options, or a file, with the "Don't remember this answer" checkbox
// (ticked as it was in the message) when the answer would be remembered.
func modal(j *askonce.Job, noRemember bool) slackapi.ModalViewRequest {
	q := j.Question
	var el slackapi.BlockElement
	label := "Your answer"
	switch {
	case q.Type == askonce.QuestionSelectOne || (q.Type == askonce.QuestionTargetFile && len(q.Options) > maxSelectOptions):
		// Other… of a SELECT_ONE, or a file among too many to list.
		in := slackapi.NewPlainTextInputBlockElement(plain("Type the answer", 150), inputAction)
		in.MaxLength = askonce.MaxFreeText
		el = in
	case q.Type == askonce.QuestionTargetFile && len(q.Options) > 0:
		el, label = input(q), "File"
	default:
		el = input(q)
	}
	blocks := []slackapi.Block{
		slackapi.NewSectionBlock(plain(q.Text, 3000), nil, nil),
		slackapi.NewInputBlock(inputBlock, plain(label, 2000), nil, el),
	}
	if len(q.Fields) > 0 {
		blocks = fieldsBlocks(q)
	}
	if cb := rememberBox(j, noRemember); cb != nil {
		blocks = append(blocks, slackapi.NewInputBlock(rememberBlock, plain("Memory", 2000), nil, cb).WithOptional(true))
	}
	return slackapi.ModalViewRequest{
		Type:            slackapi.VTModal,
		CallbackID:      modalCallback,
		PrivateMetadata: jobRef(j.TenantID, j.ID),
		Title:           plain("Answer the question", 24),
		Submit:          plain("Answer", 24),
		Close:           plain("Close", 24),
		Blocks:          slackapi.Blocks{BlockSet: blocks},
	}
}
