package rules

import (
	"bytes"
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/lex"
)

//go:embed profiles/*.json closed.json open.json
var embedded embed.FS

// Check names, in the order a profile's "checks" list may use them.
const (
	CheckContradiction = "contradiction"
	CheckDestructive   = "destructive"
	CheckCandidates    = "candidates"
	CheckSpecSchema    = "specSchema"
	CheckChoice        = "choice"
	// CheckVague is opt-in: a goal that names nothing to act on. It is
	// not grounded in anything but the words, so the general profile
	// leaves it out.
	CheckVague = "vague"
)

// checkNames lists every check, in the order the general profile runs them.
var checkNames = []string{CheckContradiction, CheckDestructive, CheckCandidates, CheckSpecSchema, CheckChoice, CheckVague}

// Planner names for a profile's "planner" field.
const (
	// PlannerSteps plans one task per step of the goal (numbered or
	// bulleted lines, sentences, "then"), chained in order.
	PlannerSteps = "steps"
	// PlannerTemplate plans the profile's task template for the kind of
	// thing the goal names, with a spec of name, kind and properties.
	PlannerTemplate = "template"
)

// Profile is one rule set of the rules interpreter, as read from its JSON
// file (the format: docs/interpreters.md). Load one with
// LoadProfile; the zero value is not usable. A loaded Profile is immutable
// and safe for concurrent use.
type Profile struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Aliases     []string `json:"aliases,omitempty"`
	// Checks run in this order; the first that cannot be settled asks.
	Checks []string `json:"checks"`
	// Planner is PlannerSteps (the default) or PlannerTemplate.
	Planner     string         `json:"planner,omitempty"`
	Groups      []Group        `json:"groups,omitempty"`
	Properties  []Property     `json:"properties,omitempty"`
	Kinds       []Kind         `json:"kinds,omitempty"`
	DefaultKind string         `json:"defaultKind,omitempty"`
	Tasks       []TaskTemplate `json:"tasks,omitempty"`
	// Gating, when set, lets a job proceed instead of asking a cosmetic
	// question (docs/protocol.md rule 8).
	Gating *Gating `json:"gating,omitempty"`
	Words

	c *compiled
}

// Words are a profile's own vocabulary, added to the lists of closed.json
// and open.json: words that name nothing to act on in its domain, the verbs,
// commands and data objects of destructive commands, and idioms. The
// grammar (determiners, negations, question words, prepositions,
// connectors, ...) is closed.json's alone. An entry of several words (e.g.
// "git push --force") is a phrase matched as a token sequence.
type Words struct {
	StopWords           []string `json:"stopWords,omitempty"`
	Destructive         []string `json:"destructive,omitempty"`
	DestructiveCommands []string `json:"destructiveCommands,omitempty"`
	Objects             []string `json:"objects,omitempty"`
	Idioms              []string `json:"idioms,omitempty"`
}

// Gating is a profile's gating policy (docs/protocol.md rule 8): a goal that
// names one of Words (as a whole token) does not ask a cosmetic question;
// the job proceeds under the gating directive, and the assumption starts
// with Label ("Block-only mod: the cosmetic question ... was not asked").
type Gating struct {
	Label string   `json:"label"`
	Words []string `json:"words"`
}

// Group is a set of mutually exclusive sides (hot vs cold). A goal that
// mentions two sides of one group is a contradiction. Cosmetic marks a
// group about appearance only; its questions carry "cosmetic": true.
// Action marks a group whose sides say how or when a command is done
// (daily, in parallel), not what a thing is: said after the object of two
// commands, they are about two actions. Contents marks a group whose sides
// say what a thing is made of (vegetarian, meat): a side word after "with"
// speaks of the thing before it ("a lasagne with ground beef" is a meat
// lasagne), where in other groups it names a thing of its own ("hot soup
// with ice": the ice is cold, not the soup).
type Group struct {
	Name     string `json:"name"` // the spec key of the settled side
	Cosmetic bool   `json:"cosmetic,omitempty"`
	Action   bool   `json:"action,omitempty"`
	Contents bool   `json:"contents,omitempty"`
	Sides    []Side `json:"sides"`
}

// Side is one side of a group. Words match whole tokens and are shown as
// written; Forms maps further tokens to the word shown for them
// ("freezes" -> "frozen").
type Side struct {
	Name  string            `json:"name"`
	Words []string          `json:"words"`
	Forms map[string]string `json:"forms,omitempty"`
}

// Property is a spec property read from words (colour, hardness): the
// first value whose word the goal mentions, else Default (omitted when
// empty).
type Property struct {
	Name    string              `json:"name"`
	Default string              `json:"default,omitempty"`
	Values  map[string][]string `json:"values"`
}

// Kind is a kind of thing (block, item, food) and the words that name it.
// The template planner uses the first kind the goal names, else the
// profile's DefaultKind.
type Kind struct {
	Kind  string   `json:"kind"`
	Words []string `json:"words"`
}

// TaskTemplate is one task of the template planner. Title and Instruction
// may use {name}, {id}, {kind}, {properties} and {goal}. A template with
// Kinds is used only for those kinds; a task that depends on an unused
// template depends on that template's dependencies instead.
type TaskTemplate struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Instruction string   `json:"instruction"`
	DependsOn   []string `json:"dependsOn"`
	Kinds       []string `json:"kinds,omitempty"`
}

// LoadProfile reads a profile from its JSON form, checks it and prepares
// it for use. Unknown fields are an error, so that a misspelt key does not
// silently disable a rule.
func LoadProfile(r io.Reader) (*Profile, error) {
	return loadProfile(r, "")
}

func loadProfile(r io.Reader, name string) (*Profile, error) {
	var p Profile
	if err := decodeStrict(r, &p); err != nil {
		return nil, fmt.Errorf("rules: read profile: %w", err)
	}
	if name != "" {
		p.Name = name
	}
	if err := p.compile(); err != nil {
		return nil, fmt.Errorf("rules: profile %q: %w", p.Name, err)
	}
	return &p, nil
}

func decodeStrict(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("text after the JSON object")
	}
	return nil
}

// embeddedProfiles are the profiles shipped in profiles/*.json, keyed by
// name, loaded once and shared by every Interpreter.
var embeddedProfiles = sync.OnceValues(func() (map[string]*Profile, error) {
	files, err := fs.Glob(embedded, "profiles/*.json")
	if err != nil {
		return nil, err
	}
	out := make(map[string]*Profile, len(files))
	for _, f := range files {
		b, err := embedded.ReadFile(f)
		if err != nil {
			return nil, err
		}
		p, err := loadProfile(bytes.NewReader(b), "")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if want := strings.TrimSuffix(path.Base(f), ".json"); p.Name != want {
			return nil, fmt.Errorf("rules: %s names profile %q", f, p.Name)
		}
		out[p.Name] = p
	}
	return out, nil
})

// flag is one role a word plays.
type flag uint32

const (
	fStop flag = 1 << iota
	fCue
	fNeg
	fDet
	fFree
	fOr
	fOrIgnore
	fConj
	fStepSep
	fConnector
	fParallel
	fDestructive
	fCommand
	fObject
	fNoChoice
	fPlaceholder
	fVague
	fQuestion
	fOpener
	fPrep
	fCondition
	fIdiom
	fTopic
)

// listFlags are the vocabulary's lists that give a word a role in the
// lexicon, and the role each gives its words.
var listFlags = map[string]flag{
	"stopWords":           fStop,        // name nothing to act on (the vague check, content words)
	"functionalCues":      fCue,         // make a later word of the clause functional
	"negations":           fNeg,         // cancel the next word; rule out a choice after them
	"determiners":         fDet,         // open a noun phrase: a command's first word that is one is no verb
	"freeChoice":          fFree,        // leave a choice to the agent ("any", "to taste")
	"orWords":             fOr,          // separate alternatives
	"orIgnore":            fOrIgnore,    // right after "or", cancel it ("or so", "or more")
	"conjunctions":        fConj,        // end a command; removed with a dropped neighbour
	"stepSeparators":      fStepSep,     // split a sentence into steps ("then")
	"connectors":          fConnector,   // trimmed from the ends of a step ("first", "please")
	"parallelCues":        fParallel,    // make a step parallel to the one before ("meanwhile")
	"destructive":         fDestructive, // destructive verbs, as a command's main verb with a data object
	"destructiveCommands": fCommand,     // destructive as the command itself ("rm -rf")
	"objects":             fObject,      // data whose loss cannot be undone (file, branch, account)
	"noChoiceVerbs":       fNoChoice,    // verbs whose object's alternatives are no choice: a suggestion ("serve"), a topic ("compare", "classify")
	"placeholders":        fPlaceholder, // stand for an object without naming it ("it", "stuff")
	"vagueWords":          fVague,       // say nothing on their own ("fix", "better")
	"questionWords":       fQuestion,    // open a sentence that asks the agent something
	"requestOpeners":      fOpener,      // turn such a sentence back into a request ("can you")
	"prepositions":        fPrep,        // separate two objects; end a noun phrase
	"conditions":          fCondition,   // end an alternative ("or until")
	"idioms":              fIdiom,       // phrases whose words are not concepts ("cold start")
	"topicWords":          fTopic,       // make what follows in the sentence a topic, not a thing to act on ("about")
}

type sideRef struct {
	group, side int
	display     string
}

type propRef struct {
	prop  int
	value string
}

// entry is everything the profile knows about one word, so that a token
// needs one map look-up.
type entry struct {
	flags flag
	sides []sideRef
	props []propRef
	kind  string
}

func (e *entry) has(f flag) bool { return e != nil && e.flags&f != 0 }

// sideOf is the side of a group the word w, or its stem, is on ("biggest"
// as "big": large), if any.
func (c *compiled) sideOf(w string) (sideRef, bool) {
	for _, k := range []string{w, stem(w)} {
		if e := c.lex[k]; e != nil && len(e.sides) == 1 {
			return e.sides[0], true
		}
	}
	return sideRef{}, false
}

// sameSide reports whether the words a and b are on one side of one of
// the profile's groups: "big" and "large", "biggest" and "huge".
func (c *compiled) sameSide(a, b string) bool {
	sa, ok := c.sideOf(a)
	sb, ok2 := c.sideOf(b)
	return ok && ok2 && sa.group == sb.group && sa.side == sb.side
}

// phrase is an entry of several words: of a word list ("and then"), or a
// side of a group ("one at a time": its tokens are that side and nothing
// else).
type phrase struct {
	toks []string
	flag flag
	side *sideRef
}

// phraseOf is w's tokens as a phrase.
func phraseOf(w string) phrase {
	var ph phrase
	for _, t := range lex.Split(w, nil) {
		ph.toks = append(ph.toks, t.Text)
	}
	return ph
}

// opening is the phrases that open with one word, the roles they play
// and whether one names a side of a group, so that a look-up of a role
// none of them plays stops at once.
type opening struct {
	flags   flag
	sides   bool
	phrases []phrase
}

// addPhrase indexes ph by its first token.
func (c *compiled) addPhrase(ph phrase) {
	o := c.phrases[ph.toks[0]]
	if o == nil {
		o = &opening{}
		c.phrases[ph.toks[0]] = o
	}
	o.flags |= ph.flag
	o.sides = o.sides || ph.side != nil
	o.phrases = append(o.phrases, ph)
}

// at reports whether toks[i:] opens with ph, in one clause.
func (ph *phrase) at(toks []token, i int) bool {
	return startsRun(toks[i:], len(ph.toks), func(k int, t *token) bool { return t.Text == ph.toks[k] && t.Clause == toks[i].Clause })
}

// compiled is a profile prepared for the hot path: every word list folded
// into one lexicon, phrases indexed by their first token, and the
// template's task list per kind.
type compiled struct {
	lex        map[string]*entry
	phrases    map[string]*opening // by first token
	groupOrder []int               // functional groups first, then cosmetic
	checks     []string
	planner    string
	kindTasks  map[string][]askonce.Task
	defaultKnd string
	gateWords  []string // the gating policy's words, if any
}

func (p *Profile) compile() error {
	p.Name = strings.ToLower(strings.TrimSpace(p.Name))
	if p.Name == "" || strings.ContainsAny(p.Name, " \t\r\n") {
		return fmt.Errorf("name %q must be non-empty and without spaces", p.Name)
	}
	c := &compiled{
		lex:     make(map[string]*entry, 512),
		phrases: make(map[string]*opening),
	}
	for _, ch := range p.Checks {
		if !slices.Contains(checkNames, ch) {
			return fmt.Errorf("unknown check %q (want one of %s)", ch, strings.Join(checkNames, ", "))
		}
		if slices.Contains(c.checks, ch) {
			return fmt.Errorf("check %q is listed twice", ch)
		}
		c.checks = append(c.checks, ch)
	}
	c.planner = cmp.Or(p.Planner, PlannerSteps)
	if c.planner != PlannerSteps && c.planner != PlannerTemplate {
		return fmt.Errorf("unknown planner %q (want %q or %q)", p.Planner, PlannerSteps, PlannerTemplate)
	}

	type flagged struct {
		words []string
		f     flag
	}
	var lists []flagged // the vocabulary's lists, then the profile's
	for _, name := range slices.Sorted(maps.Keys(listFlags)) {
		lists = append(lists, flagged{vocab.lists[name], listFlags[name]})
	}
	lists = append(lists, flagged{p.StopWords, fStop}, flagged{p.Destructive, fDestructive}, flagged{p.DestructiveCommands, fCommand}, flagged{p.Objects, fObject}, flagged{p.Idioms, fIdiom})
	for _, l := range lists {
		for _, w := range l.words {
			if err := c.addFlag(w, l.f); err != nil {
				return err
			}
		}
	}

	for gi, g := range p.Groups {
		if strings.TrimSpace(g.Name) == "" || len(g.Sides) < 2 {
			return fmt.Errorf("group %d %q needs a name and at least two sides", gi+1, g.Name)
		}
		owner := map[string]string{}
		for si, s := range g.Sides {
			if strings.TrimSpace(s.Name) == "" || len(s.Words) == 0 {
				return fmt.Errorf("group %q: side %d needs a name and words", g.Name, si+1)
			}
			words := map[string]string{}
			maps.Copy(words, s.Forms)
			for _, w := range s.Words {
				words[w] = w
			}
			for _, w := range slices.Sorted(maps.Keys(words)) {
				ref := sideRef{group: gi, side: si, display: strings.ToLower(words[w])}
				if ph := phraseOf(w); len(ph.toks) > 1 { // a phrase: "one at a time"
					key := strings.Join(ph.toks, " ")
					if o, ok := owner[key]; ok && o != s.Name {
						return fmt.Errorf("group %s: phrase %q belongs to both %q and %q", g.Name, w, o, s.Name)
					}
					owner[key], ph.side = s.Name, &ref
					c.addPhrase(ph)
					continue
				}
				if err := c.claim(owner, "group "+g.Name, s.Name, w, func(e *entry) { e.sides = append(e.sides, ref) }); err != nil {
					return err
				}
			}
		}
	}
	for _, cosmetic := range []bool{false, true} {
		for gi, g := range p.Groups {
			if g.Cosmetic == cosmetic {
				c.groupOrder = append(c.groupOrder, gi)
			}
		}
	}
	for pi, pr := range p.Properties {
		if strings.TrimSpace(pr.Name) == "" {
			return fmt.Errorf("property %d has no name", pi+1)
		}
		owner := map[string]string{}
		for _, v := range slices.Sorted(maps.Keys(pr.Values)) {
			for _, w := range pr.Values[v] {
				if err := c.claim(owner, "property "+pr.Name, v, w, func(e *entry) { e.props = append(e.props, propRef{prop: pi, value: v}) }); err != nil {
					return err
				}
			}
		}
	}
	kinds := map[string]string{}
	for _, k := range p.Kinds {
		if strings.TrimSpace(k.Kind) == "" || len(k.Words) == 0 {
			return fmt.Errorf("a kind needs a name and words")
		}
		for _, w := range k.Words {
			if err := c.claim(kinds, "kinds", k.Kind, w, func(e *entry) { e.kind = k.Kind }); err != nil {
				return err
			}
		}
	}
	c.defaultKnd = cmp.Or(p.DefaultKind, "item")

	if g := p.Gating; g != nil {
		if strings.TrimSpace(g.Label) == "" || len(g.Words) == 0 {
			return fmt.Errorf("gating needs a label and words")
		}
		for _, w := range g.Words {
			if err := c.claim(map[string]string{}, "gating", "", w, func(*entry) {}); err != nil {
				return err
			}
			c.gateWords = append(c.gateWords, strings.ToLower(w))
		}
	}

	if c.planner == PlannerTemplate {
		if err := c.compileTemplate(p); err != nil {
			return err
		}
	}
	p.c = c
	return nil
}

// claim gives the one-word w to owner in a set of exclusive owners (the
// sides of a group, the values of a property, the kinds), applying fn to
// its entry; a word that another owner holds is an error.
func (c *compiled) claim(owners map[string]string, set, owner, w string, fn func(*entry)) error {
	toks := lex.Split(w, nil)
	if len(toks) != 1 {
		return fmt.Errorf("%s: %q must be exactly one word", set, w)
	}
	key := toks[0].Text
	if o, ok := owners[key]; ok && o != owner {
		return fmt.Errorf("%s: word %q belongs to both %q and %q", set, w, o, owner)
	}
	owners[key] = owner
	c.each(key, fn)
	return nil
}

// addFlag adds a role to a word, or to a phrase when w has several tokens.
func (c *compiled) addFlag(w string, f flag) error {
	ph := phraseOf(w)
	ph.flag = f
	switch len(ph.toks) {
	case 0:
		return fmt.Errorf("word %q has no letters", w)
	case 1:
		c.each(ph.toks[0], func(e *entry) { e.flags |= f })
	default:
		c.addPhrase(ph)
	}
	return nil
}

// each applies fn to the entry of key and, for a Japanese word starting
// with kanji, to the entry of its kanji stem, so that 凍る finds 凍った.
func (c *compiled) each(key string, fn func(*entry)) {
	fn(c.entry(key))
	if lex.IsHanStart(key) {
		if stem := lex.HanStem(key); stem != key {
			fn(c.entry(stem))
		}
	}
}

func (c *compiled) entry(key string) *entry {
	e := c.lex[key]
	if e == nil {
		e = &entry{}
		c.lex[key] = e
	}
	return e
}

// compileTemplate checks the task template and resolves it once per kind.
func (c *compiled) compileTemplate(p *Profile) error {
	if len(p.Tasks) == 0 {
		return fmt.Errorf("the template planner needs tasks")
	}
	all := askonce.Plan{}
	byID := map[string]*TaskTemplate{}
	for i := range p.Tasks {
		t := &p.Tasks[i]
		all.Tasks = append(all.Tasks, askonce.Task{ID: t.ID, Title: t.Title, Instruction: t.Instruction, DependsOn: t.DependsOn})
		byID[t.ID] = t
	}
	if errs := all.Validate(nil); len(errs) > 0 {
		return fmt.Errorf("task template: %s", strings.Join(errs, "; "))
	}
	kinds := []string{c.defaultKnd}
	for _, k := range p.Kinds {
		if !slices.Contains(kinds, k.Kind) {
			kinds = append(kinds, k.Kind)
		}
	}
	c.kindTasks = make(map[string][]askonce.Task, len(kinds))
	for _, kind := range kinds {
		used := func(t *TaskTemplate) bool { return len(t.Kinds) == 0 || slices.Contains(t.Kinds, kind) }
		// deps resolves a dependency on an unused task to that task's
		// own (resolved) dependencies.
		var deps func(ids []string) []string
		deps = func(ids []string) []string {
			var out []string
			for _, id := range ids {
				if t := byID[id]; used(t) {
					out = append(out, id)
				} else {
					out = append(out, deps(t.DependsOn)...)
				}
			}
			slices.Sort(out)
			return slices.Compact(out)
		}
		// above reports whether to is an ancestor of from, which makes a
		// dependency of a task on both redundant (a transitive reduction
		// keeps the template's DAG readable).
		var above func(from, to string) bool
		above = func(from, to string) bool {
			return slices.ContainsFunc(deps(byID[from].DependsOn), func(d string) bool { return d == to || above(d, to) })
		}
		var tasks []askonce.Task
		for i := range p.Tasks {
			if t := &p.Tasks[i]; used(t) {
				ds := deps(t.DependsOn)
				ds = slices.DeleteFunc(append([]string{}, ds...), func(d string) bool {
					return slices.ContainsFunc(ds, func(o string) bool { return o != d && above(o, d) })
				})
				tasks = append(tasks, askonce.Task{ID: t.ID, Title: t.Title, Instruction: t.Instruction, DependsOn: ds})
			}
		}
		c.kindTasks[kind] = tasks
	}
	return nil
}
