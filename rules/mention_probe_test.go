package rules_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/rules"
)

// mentionProbe is one goal in a room: whether the rules ask which
// candidate is meant (and over which), and which bindings the plan must
// and must not record.
type mentionProbe struct {
	cands   []string
	goal    string
	options []string    // the question's options; nil: no question
	bind    []mentionOf // recorded
	nobind  []mentionOf // not recorded (Candidate "" : no binding of the mention at all)
}

// Rooms for the probes: each holds two candidates that share a head.
var (
	kitchen    = []string{"canned peaches", "apple juice", "orange juice", "fridge", "frozen peas", "fresh peas", "nonstick pan", "cast iron pan", "rye bread", "white bread", "mint ice cream", "coffee ice cream", "glass dish", "metal dish", "oat milk", "whole milk", "chicken breast", "toaster", "oven", "stove", "red mug", "blue mug", "bowl", "sink"}
	livingRoom = []string{"TV remote", "AC remote", "floor lamp", "desk lamp", "red cushion", "striped cushion", "sofa", "coffee table", "laptop", "phone charger", "laptop charger"}
)

func bindOf(mention, cand string) mentionOf { return mentionOf{Mention: mention, Candidate: cand} }

// TestMentionBindsWhatTheGoalsWordsSettle holds issue 39's classes 3-5
// on goals of its own: a bare noun two candidates share is asked about
// only when the goal's own words leave both open; the words that settle
// it are an attribute before or after it, the source a from/of phrase
// names, a place or state the goal states, and a
// universal quantifier; a binding is recorded only for the one candidate
// that fits and that the verb acts on.
func TestMentionBindsWhatTheGoalsWordsSettle(t *testing.T) {
	in, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	probes := []mentionProbe{
		// Class 4: every multi-word candidate's head is a mention.
		{cands: kitchen, goal: "scoop the ice cream into the bowl", options: []string{"mint ice cream", "coffee ice cream"}},
		{cands: kitchen, goal: "put the ice cream back", options: []string{"mint ice cream", "coffee ice cream"}},
		{cands: kitchen, goal: "heat the pan", options: []string{"nonstick pan", "cast iron pan"}},
		{cands: kitchen, goal: "pour the juice into the red mug", options: []string{"apple juice", "orange juice"}},
		{cands: livingRoom, goal: "Pass me the remote.", options: []string{"TV remote", "AC remote"}},
		{cands: livingRoom, goal: "Plug in the charger.", options: []string{"phone charger", "laptop charger"}},
		{cands: []string{"white t-shirt", "black t-shirt", "laundry basket"}, goal: "Put the t-shirt in the laundry basket.", options: []string{"white t-shirt", "black t-shirt"}},
		{cands: []string{"vitamin D", "vitamin C", "glass"}, goal: "Grab me the vitamin.", options: []string{"vitamin D", "vitamin C"}},
		{cands: []string{"vitamin D", "vitamin C", "glass"}, goal: "Grab me the vitamin C.", bind: []mentionOf{bindOf("vitamin C", "vitamin C")}},
		{cands: []string{"Plan A", "Plan B"}, goal: "print the plan", options: []string{"Plan A", "Plan B"}},
		{cands: []string{"staging-eu", "staging-us"}, goal: "Run the smoke tests against the staging environment.", options: []string{"staging-eu", "staging-us"}},
		{cands: []string{"staging-eu", "staging-us"}, goal: "Run the smoke tests against staging-us."},
		{cands: []string{"prod-eu", "prod-us", "staging"}, goal: "restart prod in the EU", bind: []mentionOf{bindOf("prod", "prod-eu")}},
		// A version is no count: "the 1.3 release branch" is not both.
		{cands: []string{"release/1.2", "release/1.3"}, goal: "cherry-pick the fix onto the 1.3 release branch",
			nobind: []mentionOf{bindOf("release", "release/1.2")}},
		// A kind word no candidate names between the head and what is said of it.
		{cands: []string{"feature/search", "feature/billing"}, goal: "Rebase the feature branch for billing on main.", bind: []mentionOf{bindOf("feature", "feature/billing")}},
		{cands: []string{"feature/search", "feature/billing"}, goal: "Rebase the feature branch that isn't search.", bind: []mentionOf{bindOf("feature", "feature/billing")}},
		{cands: []string{"staging-eu", "staging-us"}, goal: "Deploy to the staging environment that is in the EU.", bind: []mentionOf{bindOf("staging", "staging-eu")}},
		{cands: []string{"feature/search", "feature/billing"}, goal: "Rebase the feature branch on main.", options: []string{"feature/search", "feature/billing"}},
		{cands: []string{"us-east-cluster", "us-west-cluster"}, goal: "drain the cluster", options: []string{"us-east-cluster", "us-west-cluster"}},
		// Names that differ only by a number: none is named whole.
		{cands: []string{"table 1", "table 7", "chair"}, goal: "put the chair at the table", options: []string{"table 1", "table 7"}},
		{cands: []string{"table 1", "table 7", "chair"}, goal: "put the chair at table 7"},
		{cands: []string{"release-1.2", "release-1.3"}, goal: "Merge the release branch into main.", options: []string{"release-1.2", "release-1.3"},
			nobind: []mentionOf{bindOf("release", "")}},
		{cands: []string{"release-1.2", "release-1.3"}, goal: "Merge release-1.3 into main."},
		{cands: []string{"Apple_1", "Apple_2", "table"}, goal: "put the apple on the table", options: []string{"Apple_1", "Apple_2"}},
		// The source a from/of phrase names settles it.
		{cands: kitchen, goal: "drain the juice from the canned peaches"},
		{cands: kitchen, goal: "pour off the juice of the canned peaches"},
		{cands: kitchen, goal: "drain the syrup from the canned peaches"},
		{cands: kitchen, goal: "take the juice from the fridge", options: []string{"apple juice", "orange juice"}},
		// A state or place the goal states settles it.
		{cands: kitchen, goal: "cook the peas from the freezer"},
		{cands: kitchen, goal: "cook the frozen peas", bind: []mentionOf{bindOf("frozen peas", "frozen peas")}},
		{cands: kitchen, goal: "cook the peas that are frozen"},
		{cands: kitchen, goal: "cook the peas straight from the freezer"},
		{cands: kitchen, goal: "cook the peas", options: []string{"frozen peas", "fresh peas"}},
		{cands: []string{"dried apricots", "fresh apricots"}, goal: "eat the dry apricots", bind: []mentionOf{bindOf("dry apricots", "dried apricots")}},
		{cands: kitchen, goal: "take the peas out of the freezer", bind: []mentionOf{bindOf("peas", "frozen peas")}},
		{cands: kitchen, goal: "put the peas in the freezer", options: []string{"frozen peas", "fresh peas"}}, // where they go says nothing of which
		{cands: kitchen, goal: "take the juice out of the fridge", options: []string{"apple juice", "orange juice"}},
		{cands: kitchen, goal: "drain the juice out of the canned peaches"},
		{cands: kitchen, goal: "drain the juice off the canned peaches"},
		// ... and when the source is a candidate, its words are its own.
		{cands: []string{"canned peaches", "canned juice", "orange juice"}, goal: "drain the juice from the canned peaches",
			nobind: []mentionOf{bindOf("juice", "")}},
		{cands: []string{"canned peaches", "peach juice", "orange juice"}, goal: "drain the juice from the canned peaches",
			nobind: []mentionOf{bindOf("juice", "")}},
		{cands: []string{"orange", "orange juice", "apple juice"}, goal: "squeeze the juice of the orange into a glass",
			nobind: []mentionOf{bindOf("juice", "")}},
		{cands: []string{"orange juice", "apple juice"}, goal: "pour the juice of the orange into a glass",
			bind: []mentionOf{bindOf("juice", "orange juice")}},
		{cands: []string{"bread knife", "chef's knife", "rye bread"}, goal: "cut it with the knife for the bread",
			bind: []mentionOf{bindOf("knife", "bread knife")}},
		{cands: []string{"frozen peas", "fresh peas", "freezer"}, goal: "cook the peas from the freezer",
			bind: []mentionOf{bindOf("peas", "frozen peas")}},
		// A phrase after "with" may be a thing the verb uses: its words are
		// not the mug's or the pan's, so they settle nothing.
		{cands: kitchen, goal: "heat the pan with the nonstick coating", options: []string{"nonstick pan", "cast iron pan"}},
		{cands: kitchen, goal: "heat the pan with the nonstick surface and add oil", options: []string{"nonstick pan", "cast iron pan"}},
		{cands: kitchen, goal: "wipe the pan with a towel", options: []string{"nonstick pan", "cast iron pan"}},
		{cands: kitchen, goal: "grab the mug with the red handle", options: []string{"red mug", "blue mug"}},                                      // the handle is red, not the mug
		{cands: kitchen, goal: "wash the mug with the blue sponge", options: []string{"red mug", "blue mug"}},                                     // no sponge in the room: still not the mug's blue
		{cands: kitchen, goal: "fill the mug with the red wine", options: []string{"red mug", "blue mug"}},                                        // what goes in it
		{cands: append([]string{"blue sponge"}, kitchen...), goal: "wash the mug with the blue sponge", options: []string{"red mug", "blue mug"}}, // a thing of its own
		// ... unless the thing it names is a word of the candidates' own
		// names that is no candidate itself: then the phrase names the
		// candidate by it (a lamp on the desk, with a desk in the room, may
		// be where it goes).
		{cands: []string{"almond milk carton", "oat milk carton"}, goal: "open the carton with the almond milk",
			bind: []mentionOf{bindOf("carton", "almond milk carton")}},
		{cands: []string{"chocolate chip cookies", "oatmeal cookies"}, goal: "eat the cookies with chocolate chips",
			bind: []mentionOf{bindOf("cookies", "chocolate chip cookies")}},
		{cands: []string{"kitchen light", "bathroom light", "desk"}, goal: "turn off the light in the kitchen and tidy the desk",
			bind: []mentionOf{bindOf("light", "kitchen light")}},
		{cands: []string{"red wine glass", "white wine glass"}, goal: "fill the glass with the white wine",
			bind: []mentionOf{bindOf("glass", "white wine glass")}},
		{cands: []string{"desk lamp", "floor lamp", "desk"}, goal: "put the lamp on the desk", options: []string{"desk lamp", "floor lamp"}},
		// Where a placing command puts its object is no word about which
		// one it is: the kitchen towel may be the one put in the bathroom.
		{cands: []string{"kitchen towel", "bath towel"}, goal: "Put the towel in the kitchen.", options: []string{"kitchen towel", "bath towel"}},
		{cands: []string{"bedroom lamp", "desk lamp"}, goal: "Move the lamp to the bedroom.", options: []string{"bedroom lamp", "desk lamp"}},
		{cands: []string{"garage key", "house key"}, goal: "hang the key in the garage", options: []string{"garage key", "house key"}},
		{cands: []string{"kitchen towel", "bath towel"}, goal: "Put the towel from the kitchen in the wash.", bind: []mentionOf{bindOf("towel", "kitchen towel")}},
		{cands: []string{"mint ice cream", "coffee ice cream", "blue bowl", "red bowl"}, goal: "scoop the ice cream into the blue bowl",
			options: []string{"mint ice cream", "coffee ice cream"}},
		// One word written with or without a hyphen.
		{cands: kitchen, goal: "heat the non-stick pan", bind: []mentionOf{bindOf("non-stick pan", "nonstick pan")}},
		{cands: kitchen, goal: "heat the pan, the non-stick one", bind: []mentionOf{bindOf("pan", "nonstick pan")}},
		{cands: []string{"non-stick pan", "cast-iron pan"}, goal: "heat the nonstick pan", bind: []mentionOf{bindOf("nonstick pan", "non-stick pan")}},
		{cands: kitchen, goal: "heat the cast-iron pan", bind: []mentionOf{bindOf("cast-iron pan", "cast iron pan")}},
		// An attribute before it, also as part of a hyphenated word.
		{cands: kitchen, goal: "scoop the mint-flavoured ice cream", bind: []mentionOf{bindOf("mint-flavoured ice cream", "mint ice cream")}},
		{cands: kitchen, goal: "warm the oat-based milk", bind: []mentionOf{bindOf("oat-based milk", "oat milk")}},
		{cands: kitchen, goal: "rinse the mug that is red", bind: []mentionOf{bindOf("mug", "red mug")}},
		{cands: kitchen, goal: "rinse the mug which isn't blue", bind: []mentionOf{bindOf("mug", "red mug")}},
		// What it is not: a candidate named by the word's negative form is
		// the one meant; a word whose first part is a negation says what
		// it is not.
		{cands: []string{"peanut butter", "salted butter", "unsalted butter"}, goal: "melt the butter without salt",
			bind: []mentionOf{bindOf("butter", "unsalted butter")}},
		{cands: []string{"salted butter", "unsalted butter"}, goal: "melt the butter that has no salt",
			bind: []mentionOf{bindOf("butter", "unsalted butter")}},
		{cands: []string{"opened jar", "unopened jar"}, goal: "hand me the jar that hasn't been opened",
			bind: []mentionOf{bindOf("jar", "unopened jar")}, nobind: []mentionOf{bindOf("jar", "opened jar")}},
		{cands: kitchen, goal: "rinse the mug that wasn't red", bind: []mentionOf{bindOf("mug", "blue mug")}},
		{cands: []string{"opened jar", "unopened jar"}, goal: "hand me the jar that is not open",
			bind: []mentionOf{bindOf("jar", "unopened jar")}},
		{cands: kitchen, goal: "fill the non-red mug", bind: []mentionOf{bindOf("non-red mug", "blue mug")}, nobind: []mentionOf{bindOf("non-red mug", "red mug")}},
		{cands: kitchen, goal: "put the non-coffee ice cream in the bowl", bind: []mentionOf{bindOf("non-coffee ice cream", "mint ice cream")}},
		{cands: []string{"dairy milk", "non-dairy milk"}, goal: "pour the milk that is not dairy", bind: []mentionOf{bindOf("milk", "non-dairy milk")}},
		{cands: kitchen, goal: "put the lasagne in the glass oven-safe dish"},
		{cands: kitchen, goal: "use the metal baking dish"},
		// A mention the goal's words settled names its candidate for the
		// bare mentions after it, as a full mention does.
		{cands: kitchen, goal: "take the peas out of the freezer and put the peas in the pot",
			bind: []mentionOf{bindOf("peas", "frozen peas")}, nobind: []mentionOf{bindOf("peas", "fresh peas")}},
		{cands: kitchen, goal: "take out the mint and scoop the ice cream into the bowl", bind: []mentionOf{bindOf("ice cream", "mint ice cream")}},
		{cands: kitchen, goal: "Take out the mint-flavoured ice cream. Scoop the ice cream into the bowl.", bind: []mentionOf{bindOf("ice cream", "mint ice cream")}},
		{cands: kitchen, goal: "rinse the mug that is red and put the mug in the sink", nobind: []mentionOf{bindOf("mug", "blue mug")}},
		{cands: kitchen, goal: "fill the mug that isn't red and carry the mug to the table", bind: []mentionOf{bindOf("mug", "blue mug")}, nobind: []mentionOf{bindOf("mug", "red mug")}},
		{cands: kitchen, goal: "heat the pan with the nonstick coating, then oil the pan", options: []string{"nonstick pan", "cast iron pan"}}, // nothing settled the first
		// Two named one after the other, not in one list: the nearest is
		// the one meant, not both.
		{cands: kitchen, goal: "Rinse the red mug. Wash the other mug, then dry the mug.",
			bind: []mentionOf{bindOf("mug", "blue mug")}, nobind: []mentionOf{bindOf("mug", "red mug")}},
		{cands: kitchen, goal: "Wash the red mug, then the other mug, then dry the mug.",
			bind: []mentionOf{bindOf("mug", "blue mug")}, nobind: []mentionOf{bindOf("mug", "red mug")}},
		{cands: kitchen, goal: "Wash the red mug and the blue mug, then dry the mug.", bind: []mentionOf{bindOf("mug", "red mug"), bindOf("mug", "blue mug")}}, // one list: both
		// A word that is a modifier in one candidate's name and the head of
		// another's names the one whose head it is.
		{cands: []string{"sourdough bread", "bread board", "cutting board"}, goal: "Slice the bread on the cutting board",
			bind: []mentionOf{bindOf("bread", "sourdough bread")}, nobind: []mentionOf{bindOf("bread", "bread board")}},
		{cands: []string{"sourdough bread", "bread board", "cutting board"}, goal: "Put the bread board away and slice the bread",
			bind: []mentionOf{bindOf("bread", "sourdough bread")}, nobind: []mentionOf{bindOf("bread", "bread board")}},
		// What the goal sets aside with "other than", "rather than",
		// "instead of" or "except" is not the one meant.
		{cands: []string{"wooden spoon", "metal spoon"}, goal: "use the spoon other than the metal one", bind: []mentionOf{bindOf("spoon", "wooden spoon")}},
		{cands: []string{"wooden spoon", "metal spoon"}, goal: "stir with the spoon rather than the metal spoon",
			bind: []mentionOf{bindOf("spoon", "wooden spoon")}, nobind: []mentionOf{bindOf("spoon", "metal spoon")}},
		{cands: kitchen, goal: "instead of the metal dish, bake it in the dish", bind: []mentionOf{bindOf("dish", "glass dish")}},
		{cands: kitchen, goal: "take the oat milk from the fridge and warm the milk", bind: []mentionOf{bindOf("milk", "oat milk")}}, // from: where it is taken from
		// All of them: no question.
		{cands: kitchen, goal: "toast the two kinds of bread"},
		{cands: kitchen, goal: "toast both kinds of bread"},
		{cands: kitchen, goal: "wash the two mugs", bind: []mentionOf{bindOf("mugs", "red mug"), bindOf("mugs", "blue mug")}},
		{cands: kitchen, goal: "wash two mugs", nobind: []mentionOf{bindOf("mugs", "")}}, // any two
		{cands: kitchen, goal: "wash the mugs and dry them", bind: []mentionOf{bindOf("mugs", "red mug"), bindOf("mugs", "blue mug"), bindOf("them", "blue mug")}},
		{cands: kitchen, goal: "buy mugs", nobind: []mentionOf{bindOf("mugs", "")}}, // others
		{cands: []string{"small container", "large container"}, goal: "Put the leftovers in the bigger of the two containers.",
			bind: []mentionOf{bindOf("bigger of the two containers", "large container")}, nobind: []mentionOf{bindOf("bigger of the two containers", "small container")}}, // the one the word before "of" tells apart
		{cands: []string{"large bowl", "small bowl"}, goal: "put the soup in the smallest of the bowls", bind: []mentionOf{bindOf("smallest of the bowls", "small bowl")}},
		{cands: []string{"large bowl", "small bowl"}, goal: "wash the rest of the bowls"},
		{cands: []string{"large bowl", "small bowl"}, goal: "wash one of the bowls", nobind: []mentionOf{bindOf("bowls", "")}}, // any of them
		// A word on the same side of one of the profile's groups as a word
		// of a candidate's name names it (size, temperature).
		{cands: []string{"large bowl", "small bowl"}, goal: "put the soup in the biggest bowl", bind: []mentionOf{bindOf("biggest bowl", "large bowl")}},
		{cands: []string{"large bowl", "small bowl"}, goal: "put the soup in the tiny bowl", bind: []mentionOf{bindOf("tiny bowl", "small bowl")}},
		{cands: []string{"iced tea", "hot tea"}, goal: "drink the cold tea", bind: []mentionOf{bindOf("cold tea", "iced tea")}},
		{cands: []string{"iced tea", "hot tea"}, goal: "drink the tea that is warm", bind: []mentionOf{bindOf("tea", "hot tea")}},
		{cands: []string{"small container", "large container"}, goal: "Put the leftovers in the smaller container.",
			bind: []mentionOf{bindOf("smaller container", "small container")}},
		{cands: kitchen, goal: "toast both breads"},
		{cands: kitchen, goal: "slice all the bread"},
		{cands: kitchen, goal: "wash each pan"},
		{cands: kitchen, goal: "wash every pan and dry it"},
		{cands: kitchen, goal: "serve both flavours of ice cream"},
		{cands: kitchen, goal: "toast the bread", options: []string{"rye bread", "white bread"}},
		// A universal set off right after it: all of them.
		{cands: kitchen, goal: "toast the bread (both)", bind: []mentionOf{bindOf("bread", "rye bread"), bindOf("bread", "white bread")}},
		{cands: kitchen, goal: "toast the bread, both kinds", bind: []mentionOf{bindOf("bread", "rye bread"), bindOf("bread", "white bread")}},
		{cands: kitchen, goal: "toast the bread, then butter both slices", options: []string{"rye bread", "white bread"}},
		// Class 3: bindings only for the one candidate the verb acts on.
		{cands: kitchen, goal: "take the oat milk out of the fridge and pour it into the red mug",
			bind: []mentionOf{bindOf("it", "oat milk")}, nobind: []mentionOf{bindOf("it", "fridge")}},
		{cands: kitchen, goal: "take the oat milk from the fridge and heat it",
			bind: []mentionOf{bindOf("it", "oat milk")}, nobind: []mentionOf{bindOf("it", "fridge")}},
		{cands: kitchen, goal: "season the chicken breast and bake it in the oven",
			bind: []mentionOf{bindOf("it", "chicken breast")}, nobind: []mentionOf{bindOf("it", "oven")}},
		{cands: kitchen, goal: "put the glass dish in the oven and turn it on", nobind: []mentionOf{bindOf("it", "")}},
		{cands: kitchen, goal: "grab the red mug and the blue mug, then wash them"},
		{cands: kitchen, goal: "heat the pan with the nonstick coating and wipe it", options: []string{"nonstick pan", "cast iron pan"},
			nobind: []mentionOf{bindOf("it", "cast iron pan")}},
		{cands: kitchen, goal: "drain the juice from the canned peaches",
			nobind: []mentionOf{bindOf("the juice", "apple juice"), bindOf("the juice", "orange juice")}},
		// A cover or part taken off a thing that is no place: either could be "it".
		{cands: []string{"pot", "lid"}, goal: "take the lid off the pot and stir it", nobind: []mentionOf{bindOf("it", "")}},
		{cands: []string{"pot", "lid", "pan", "fridge"}, goal: "take the lid off the pot and stir it", nobind: []mentionOf{bindOf("it", "")}},
		{cands: []string{"lid"}, goal: "take the lid off the pot and stir it", nobind: []mentionOf{bindOf("it", "")}},
		{cands: []string{"bottle", "cap"}, goal: "remove the cap from the bottle and pour it", nobind: []mentionOf{bindOf("it", "")}},
		{cands: []string{"cap"}, goal: "Remove the cap from the bottle, then pour it.", nobind: []mentionOf{bindOf("it", "")}},
		{cands: []string{"tray", "film"}, goal: "peel the film off the tray and bake it", nobind: []mentionOf{bindOf("it", "")}},
		{cands: []string{"film", "tray", "oven"}, goal: "Peel the film off the tray. Bake it in the oven.", nobind: []mentionOf{bindOf("it", "")}},
		{cands: []string{"can", "tab"}, goal: "pull the tab off the can and drink it", nobind: []mentionOf{bindOf("it", "")}},
		{cands: []string{"burger", "wrapper"}, goal: "take the wrapper off the burger and eat it", nobind: []mentionOf{bindOf("it", "")}},
		{cands: []string{"chicken", "skin"}, goal: "remove the skin from the chicken and bake it", nobind: []mentionOf{bindOf("it", "")}},
		{cands: []string{"pepper", "seeds"}, goal: "remove the seeds from the pepper and stuff it", nobind: []mentionOf{bindOf("it", "")}},
		// Taken from a thing that holds it: the thing moved.
		{cands: []string{"cookies", "package"}, goal: "take the cookies from the package and eat them", bind: []mentionOf{bindOf("them", "cookies")}},
		{cands: []string{"sandwich", "bag"}, goal: "take the sandwich from the bag and eat it", bind: []mentionOf{bindOf("it", "sandwich")}},
		{cands: []string{"tuna", "tin"}, goal: "remove the tuna from the tin and mash it", bind: []mentionOf{bindOf("it", "tuna")}, nobind: []mentionOf{bindOf("it", "tin")}},
		{cands: []string{"pizza", "box"}, goal: "slide the pizza off the box and slice it", bind: []mentionOf{bindOf("it", "pizza")}},
		// Taken out of or off a place: the thing moved.
		{cands: []string{"kettle", "stove"}, goal: "take the kettle off the stove and empty it", bind: []mentionOf{bindOf("it", "kettle")}},
		{cands: []string{"chicken", "oven"}, goal: "remove the chicken from the oven and slice it", bind: []mentionOf{bindOf("it", "chicken")}},
		{cands: []string{"cookies", "jar"}, goal: "take the cookies out of the jar and eat them", bind: []mentionOf{bindOf("them", "cookies")}},
	}
	for _, p := range probes {
		out, err := in.Interpret(t.Context(), &askonce.Request{Goal: p.goal, Prompt: p.goal, Candidates: p.cands, Attempt: 1})
		if err != nil {
			t.Fatalf("%q: %v", p.goal, err)
		}
		wantAsked(t, p.goal, out.Outcome.Question, p.options)
		if out.Outcome.Plan == nil {
			continue
		}
		got := planBindings(t, out.Outcome.Plan)
		for _, b := range p.bind {
			if !slices.ContainsFunc(got, b.matches) {
				t.Errorf("%q: binding %s=%s missing; got %v", p.goal, b.Mention, b.Candidate, got)
			}
		}
		for _, b := range p.nobind {
			if slices.ContainsFunc(got, func(g mentionOf) bool {
				return strings.EqualFold(g.Mention, b.Mention) && (b.Candidate == "" || g.Candidate == b.Candidate)
			}) {
				t.Errorf("%q: binding %s=%s recorded; got %v", p.goal, b.Mention, b.Candidate, got)
			}
		}
	}
}

// TestContradictionIsAboutOneThingOnIssue39Probes holds the contradiction
// check's same-thing reading on goals of its own: a side word after
// "with" names a thing of its own unless its group says what a thing is
// made of; a modifier of that kind says what kind a noun is ("vegan
// sausage"); a verb that keeps a state makes the state it keeps a
// contradiction with the one the thing has; a weekday names a frequency;
// and a thing named again in the next sentence is the same thing.
func TestContradictionIsAboutOneThingOnIssue39Probes(t *testing.T) {
	in, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	probes := []struct {
		goal    string
		options []string // nil: no question
	}{
		{"serve the hot soup with ice", nil},
		{"serve hot soup with crushed ice", nil},
		{"make a hot drink with ice", nil},
		{"make an iced drink that is hot", []string{"icy", "hot"}},
		{"make a hot soup that is frozen", []string{"hot", "frozen"}},
		{"make a vegetarian lasagne with ground beef", []string{"vegetarian", "beef"}},
		{"make a vegan lasagne with chicken", []string{"vegan", "chicken"}},
		{"cook the vegan sausage", nil},
		{"grill the plant-based chicken for the vegetarian guests", nil},
		{"make a vegetarian pasta with plant-based chicken", nil},
		{"buy vegan sausages and plant-based burgers for the party", nil},
		{"keep the private repo public", []string{"private", "public"}},
		{"leave the private repo public", []string{"private", "public"}},
		{"make the private repo public", nil},
		{"keep the repo private", nil},
		{"keep the frozen peas cold", nil},
		{"run the backup job daily every Monday", []string{"daily", "every monday"}},
		{"run the backup every Monday and daily", []string{"every monday", "daily"}},
		{"run the backup every Monday", nil},
		{"back up the database every Monday and send a daily summary", nil},
		{"send the report every Friday and archive the logs daily", nil},
		{"Create a private repo. The repo must be public.", []string{"private", "public"}},
		{"Create a private repo. Make the repo public.", nil},
		{"Create a private repo. Make it public.", nil},
		{"Run the cleanup job every Monday. Run the cleanup job daily.", []string{"every monday", "daily"}},
		{"Check the logs daily. Archive the logs weekly.", nil},
		{"Build a tiny image. The image can serve huge files.", nil},
		{"Make a hot soup. Serve cold drinks.", nil},
	}
	for _, p := range probes {
		out, err := in.Interpret(t.Context(), &askonce.Request{Goal: p.goal, Prompt: p.goal, Attempt: 1})
		if err != nil {
			t.Fatalf("%q: %v", p.goal, err)
		}
		wantAsked(t, p.goal, out.Outcome.Question, p.options)
	}
}

// wantAsked fails t unless q is a question over options or, with options
// nil, there is no question.
func wantAsked(t *testing.T, goal string, q *askonce.Question, options []string) {
	t.Helper()
	switch {
	case options == nil && q != nil:
		t.Errorf("%q: asked %q %q, want no question", goal, q.Text, q.Options)
	case options != nil && q == nil:
		t.Errorf("%q: no question, want one over %q", goal, options)
	case options != nil && !sameOptionSet(q.Options, options):
		t.Errorf("%q: asked over %q, want %q", goal, q.Options, options)
	}
}

// TestRule14_TheFileIsTheOneTheGoalsWordsName holds issue 39's class 5 for the
// request's files: "the file" is asked about only over the files whose
// names hold the words the goal states of it, before it or after it
// with a preposition or a relative clause (what it is not, too); a word
// every file or no file holds tells nothing.
func TestRule14_TheFileIsTheOneTheGoalsWordsName(t *testing.T) {
	in, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	probes := []struct {
		files   []string
		goal    string
		options []string // nil: no question
	}{
		{[]string{"main.go", "main_test.go"}, "add a test case to the test file", nil},
		{[]string{"main.go", "README.md"}, "fix the typo in the Go file", nil},
		{[]string{"main.go", "util.go"}, "add a comment to the file with the main function", nil},
		{[]string{"api.go", "store.go", "server.go"}, "review the file for the store", nil},
		{[]string{"notes.txt", "todo.txt"}, "add milk to the file that isn't notes", nil},
		{[]string{"notes.txt", "todo.txt"}, "add milk to the file of todos", nil},
		{[]string{"a_test.go", "b_test.go", "main.go"}, "fix the test file", []string{"a_test.go", "b_test.go"}},
		{[]string{"a.go", "b.go"}, "fix the Go file", []string{"a.go", "b.go"}},     // every file holds it
		{[]string{"a.go", "b.go"}, "fix the broken file", []string{"a.go", "b.go"}}, // no file holds it
		{[]string{"README.md", "CONTRIBUTING.md"}, "fix the typos in this file", []string{"README.md", "CONTRIBUTING.md"}},
	}
	for _, p := range probes {
		out, err := in.Interpret(t.Context(), &askonce.Request{Goal: p.goal, Prompt: p.goal, Files: p.files, Attempt: 1})
		if err != nil {
			t.Fatalf("%q: %v", p.goal, err)
		}
		wantAsked(t, p.goal, out.Outcome.Question, p.options)
	}
}
