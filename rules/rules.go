package rules

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/lex"
)

// DefaultProfile is the profile of a request that names none.
const DefaultProfile = "general"

// Options configure New. The zero value gives the embedded profiles.
type Options struct {
	// ProfileFiles maps a profile name to the path of a JSON profile file.
	// The file replaces the embedded profile of that name, or adds a new
	// profile; the map key is the profile's name, whatever the file's
	// "name" says.
	ProfileFiles map[string]string
	// Profiles are profiles already read with LoadProfile, added or
	// replacing by their Name after ProfileFiles.
	Profiles []*Profile
}

// Interpreter is the rules interpreter: deterministic, offline and cheap.
// It is safe for concurrent use.
type Interpreter struct {
	byName map[string]*Profile // by name and by alias
	names  []string
}

var (
	_ askonce.Interpreter = (*Interpreter)(nil)
	_ askonce.Fast        = (*Interpreter)(nil)
)

// Fast reports true: the rules run in-process in microseconds, so the
// engine commits a job or an answer together with its outcome.
func (*Interpreter) Fast() bool { return true }

// New returns an Interpreter with the embedded profiles and those of opts.
// A profile file that cannot be read or is invalid is an error.
func New(opts Options) (*Interpreter, error) {
	base, err := embeddedProfiles()
	if err != nil {
		return nil, err
	}
	set := maps.Clone(base)
	for _, name := range slices.Sorted(maps.Keys(opts.ProfileFiles)) {
		file := opts.ProfileFiles[name]
		p, err := loadProfileFile(name, file)
		if err != nil {
			return nil, err
		}
		set[p.Name] = p
	}
	for _, p := range opts.Profiles {
		if p == nil || p.c == nil {
			return nil, fmt.Errorf("rules: Options.Profiles holds a profile not read with LoadProfile")
		}
		set[p.Name] = p
	}
	in := &Interpreter{byName: maps.Clone(set), names: slices.Sorted(maps.Keys(set))}
	for _, name := range in.names { // aliases never shadow a name, and the first claim wins
		for _, a := range set[name].Aliases {
			a = strings.ToLower(strings.TrimSpace(a))
			if _, taken := in.byName[a]; !taken && a != "" {
				in.byName[a] = set[name]
			}
		}
	}
	return in, nil
}

func loadProfileFile(name, file string) (*Profile, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return nil, fmt.Errorf("rules: profile file %s has an empty name", file)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("rules: profile %q: %w", name, err)
	}
	defer f.Close()
	p, err := loadProfile(f, name)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, file)
	}
	return p, nil
}

// Profiles lists the interpreter's profile names, sorted (aliases are not
// listed).
func (in *Interpreter) Profiles() []string {
	return slices.Clone(in.names)
}

// HasProfile reports whether name (or "" for DefaultProfile) selects a
// profile, so that a caller can reject a bad profile before a job runs.
func (in *Interpreter) HasProfile(name string) bool {
	_, err := in.profile(name)
	return err == nil
}

func (in *Interpreter) profile(name string) (*Profile, error) {
	key := cmp.Or(strings.ToLower(strings.TrimSpace(name)), DefaultProfile)
	if p := in.byName[key]; p != nil {
		return p, nil
	}
	return nil, askonce.Errorf(askonce.EINVALID, "unknown profile %q; known profiles: %s", name, strings.Join(in.names, ", "))
}

// Interpret turns req into a plan or one question (see the package
// documentation for the rules). It fails only for an unknown profile
// (EINVALID), a nil request or a done context. Usage is zero: no model
// is called.
func (in *Interpreter) Interpret(ctx context.Context, req *askonce.Request) (*askonce.Response, error) {
	if req == nil {
		return nil, askonce.Errorf(askonce.EINVALID, "rules: nil request")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := in.profile(req.Profile)
	if err != nil {
		return nil, err
	}
	prompt := req.Prompt
	if strings.TrimSpace(prompt) == "" {
		prompt = req.Goal
	}
	out, err := p.interpret(prompt, req)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(output{Title: out.Title, Plan: out.Plan, Question: out.Question})
	if err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	// No model, so no tokens and no cost: Usage stays zero, and the pages
	// say "no model tokens" rather than a count of words dressed as one.
	return &askonce.Response{Raw: raw, Outcome: out}, nil
}

// output is the JSON that askonce.ParseOutcome reads.
type output struct {
	Title    string            `json:"title"`
	Plan     *askonce.Plan     `json:"plan,omitempty"`
	Question *askonce.Question `json:"question,omitempty"`
}

// interpret runs the profile on one prompt: the detectors read it, and
// either the one chosen question or a plan is returned.
func (p *Profile) interpret(prompt string, req *askonce.Request) (*askonce.Outcome, error) {
	in := newInput(p, prompt, req)
	var rd reading
	rd.read(in, strings.TrimSpace(req.Directive) != "")
	if rd.question != nil {
		title := cmp.Or(in.c.title(in.goal, in.gt, 0, len(in.goal), nil), "Untitled goal")
		return &askonce.Outcome{Title: title, Question: rd.question}, nil
	}
	r := &run{input: in, reading: &rd}
	var plan *askonce.Plan
	var err error
	if p.c.planner == PlannerTemplate {
		plan, err = r.templatePlan()
	} else {
		plan, err = r.stepsPlan()
	}
	if err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	plan.Assumptions = r.assumptions
	return &askonce.Outcome{Title: plan.Title, Plan: plan}, nil
}

// Gate is the profile's gating policy (docs/protocol.md rule 8), for the
// engine: with a profile whose "gating" names words (minecraft-mod: block,
// blocks, ore), a goal holding one of them as a whole token does not ask a
// cosmetic question; it returns the assumption to record. Any other
// question, profile or goal asks.
func (in *Interpreter) Gate(profile, goal string, q *askonce.Question) (string, bool) {
	p, err := in.profile(profile)
	if err != nil || q == nil || !q.Cosmetic || len(p.c.gateWords) == 0 {
		return "", false
	}
	for _, t := range lex.Split(goal, nil) {
		if slices.Contains(p.c.gateWords, t.Text) {
			return p.Gating.Label + ": the cosmetic question “" + q.Text + "” was not asked; functional instructions take priority.", true
		}
	}
	return "", false
}

var _ askonce.Gater = (*Interpreter)(nil)
