package rules

import "testing"

func TestContradictionAsksOnlyWhenBothSidesHoldAtOnce(t *testing.T) {
	t.Parallel()
	runDetector(t, func(in *input) *asked { r := detectContradictions(in); return &r.asked }, []detectorCase{
		{goal: "hot frozen cheese", options: asks("hot", "frozen"), text: "both “hot” and “frozen”"},
		{goal: "a tiny giant robot", options: asks("tiny", "giant")},
		{goal: "make the water liquid, solid and gas", options: asks("liquid", "solid", "gas")},
		{goal: "the drink should be warm and icy", options: asks("warm", "icy")},
		{goal: "a hot block that freezes water", options: asks("hot", "frozen")},
		{goal: "熱い凍ったチーズ", options: asks("熱い", "凍った"), text: "「熱い」"},
		{goal: "hot frozen cheese", answer: "banana", options: asks("hot", "frozen")},
		// Settled by the answer.
		{goal: "hot frozen cheese", answer: "hot"},
		{goal: "hot frozen cheese", answer: "not hot"},
		// A process that changes a state.
		{goal: "Thaw the frozen peas in hot water"},
		{goal: "melt the ice on the steps"},
		{goal: "heat the frozen soup"},
		{goal: "freeze the leftover hot chili"},
		{goal: "熱いスープを冷まして"},
		// Different objects, alternatives, names and idioms.
		{goal: "serve the hot soup with ice cubes"},
		{goal: "hot soup and cold drinks"},
		{goal: "keep the soup hot and the dessert frozen"},
		{goal: "serve the tea hot, the lemonade icy"},
		{goal: "the left panel should be tiny and the right panel huge"},
		{goal: "スープは熱く、デザートは冷たくして"},
		{goal: "make the soup hot and frozen", options: asks("hot", "frozen")},
		{goal: "print a giant, tiny poster", options: asks("giant", "tiny")},
		{goal: "a hot and crunchy frozen snack", options: asks("hot", "frozen")},
		{goal: "serve hot or cold tea"},
		{goal: "the characters of the novel Fire and Ice"},
		{goal: "write a poem about fire and ice"},
		{goal: "give a talk on hot and cold therapy for sore muscles"},
		{goal: "draft a short report on tiny and giant stars"},
		{goal: "Can ice be hot and cold at once?"},
		{goal: `write a post titled "Hot and Cold Storage"`},
		{goal: "reduce cold start time on the hot path"},
		{goal: "a hot drink, not cold"},
		{goal: "could you make the soup hot"},
	})
}
