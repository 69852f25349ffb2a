package rules

import "testing"

func TestContradictionAsksOnlyWhenBothSidesHoldAtOnce(t *testing.T) {
	t.Parallel()
	runDetector(t, func(in *input) *asked { r := detectContradictions(in, false); return &r.asked }, []detectorCase{
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

// A contradiction is two opposite words about the same thing at once:
// words about different things ("a tiny image that serves huge files"),
// or about a thing as it is and as it is to become ("make the private
// repo public"), are none. The pairs beyond temperature, size and state
// come from the general profile's groups: private/public,
// read-only/writable, daily/weekly, vegetarian/meat and in parallel/one
// at a time (a side may be a phrase).
func TestContradictionIsTwoOppositeWordsAboutTheSameThing(t *testing.T) {
	t.Parallel()
	runDetector(t, func(in *input) *asked { r := detectContradictions(in, false); return &r.asked }, []detectorCase{
		{goal: "make the repo private and public", options: asks("private", "public")},
		{goal: "mount the volume read-only and writable", options: asks("read-only", "writable")},
		{goal: "send the report daily and weekly", options: asks("daily", "weekly")},
		{goal: "Schedule a weekly backup that runs daily", options: asks("weekly", "daily")},
		{goal: "make a vegetarian beef lasagna", options: asks("vegetarian", "beef")},
		{goal: "run the tests in parallel, one at a time", options: asks("in parallel", "one at a time")},
		{goal: "make a hot block that freezes water", options: asks("hot", "frozen")},
		// Different things, or a change.
		{goal: "build a tiny image that serves huge files"},
		{goal: "make the bucket public but keep the logs private"},
		{goal: "send a daily digest and a weekly summary"},
		{goal: "run the unit tests in parallel and the migrations one at a time"},
		{goal: "make the private repo public"},
		{goal: "make the read-only volume writable"},
		{goal: "serve the frozen pizza hot"},
		{goal: "Make a public read-only bucket for the docs"},
		{goal: "Write a poem about a tiny mouse in a huge house"},
		{goal: "非公開のリポジトリを公開して"}, // the new pairs are English: 公開して is also "publish"
		// A preposition between them, "to" too before a determiner or a
		// side word: two things, or what the thing becomes.
		{goal: "copy the public key to the private server"},
		{goal: "upload the daily logs to the weekly archive"},
		{goal: "change the nightly job to weekly"},
		{goal: "set the bucket to private, not public"},
		// The members of a plural, or "one" that stands for another thing.
		{goal: "list the public and private repos"},
		{goal: "private methods should only call public ones"},
		{goal: "keep a daily backup and a weekly one"},
		{goal: "make a private repo that is public", options: asks("private", "public")},
		// Alternatives after "between", one after the other, and two
		// things of one kind.
		{goal: "add a toggle between public and private visibility"},
		{goal: "chill the soup until it is frozen, then serve it hot"},
		{goal: "keep the cake frozen, then serve it hot"},
		{goal: "Serve the soup. Freeze the warm leftovers."},
		{goal: "serve hot food and cold food"},
		{goal: "freeze the soup then serve it"},
		// A value the goal moves away from, compares with or puts aside
		// is not held: after "from", "than", "instead of" or "except".
		{goal: "switch the job from daily to weekly"},
		{goal: "convert it from read-only to writable"},
		{goal: "make the repo public instead of private"},
		{goal: "make it bigger than the tiny one"},
		{goal: "make the new image larger than the small one"},
		{goal: "move the files from the private bucket to the public one"},
		// Different things: the nouns the words modify or are said of.
		{goal: "a small team owns a large codebase"},
		{goal: "the huge file lives on a tiny disk"},
		{goal: "turn the hot tap off and the cold one on"},
		{goal: "serve the cold drinks before the hot food"},
		{goal: "publish the public docs, which were built from a private fork"},
		// Quoted or code, and negated.
		{goal: "set `private: false` so the repo is public"},
		{goal: `rename the "private" folder and make it public`},
		{goal: "make the repo public, not private"},
		// The same thing at once.
		{goal: "make the bucket public and keep it private", options: asks("public", "private")},
		{goal: "the daily report should go out weekly", options: asks("daily", "weekly")},
		{goal: "run the jobs in parallel, one at a time", options: asks("in parallel", "one at a time")},
		// A compound's head is the thing ("a daily cron job": the job);
		// only words before a plural describe its members each, a
		// phrase side's own words are no thing.
		{goal: "a daily cron job that runs weekly", options: asks("daily", "weekly")},
		{goal: "run the tests in parallel and one at a time", options: asks("in parallel", "one at a time")},
		{goal: "make the repos private and public", options: asks("private", "public")},
		{goal: "make a tiny logo that is huge", options: asks("tiny", "huge")},
		// A side word that heads its own noun phrase is a thing of its
		// own ("replace the beef": the beef); one after "with" is part of
		// the thing before it ("a lasagne with ground beef": the lasagne).
		{goal: "replace the beef with a vegetarian patty"},
		{goal: "swap the beef for vegetarian mince"},
		{goal: "a vegetarian lasagne with ground beef", options: asks("vegetarian", "beef")},
		{goal: "make a vegan burger with bacon", options: asks("vegan", "bacon")},
		{goal: "make a meat-free chili with beef", options: asks("meat-free", "beef")},
		// The general profile's wider words: large and big, "every day",
		// more meats, "one after another", "concurrent".
		{goal: "a small team owns a large codebase"},
		{goal: "make the large logo small"},
		{goal: "make the logo small and large", options: asks("small", "large")},
		{goal: "run the backup weekly, every day", options: asks("weekly", "every day")},
		{goal: "back up the database every day and send a weekly summary"},
		{goal: "a vegetarian curry with chicken", options: asks("vegetarian", "chicken")},
		{goal: "cook chicken for Sam and a vegetarian curry for Ana"},
		{goal: "run the migrations one after another, concurrently", options: asks("one after another", "concurrently")},
		// "to" with a verb says what the thing is to become, as a
		// predicate does; "that" says what it is.
		{goal: "reschedule the daily backup to run weekly"},
		// Different things, in a clause of their own or another phrase.
		{goal: "make the repo private and the docs site public"},
		{goal: "when the private beta ends, make the repo public"},
		{goal: "after the daily build finishes, send the weekly report"},
		{goal: "store the public keys in a private vault"},
		{goal: "run tests in parallel locally and one at a time in CI"},
		{goal: "write a weekly summary of the daily logs"},
		{goal: "rename the hourly cron to daily"},
		{goal: "split the large file into small chunks"},
		{goal: "make a vegetarian version of the beef stew"},
		{goal: "the repo was private; make it public"},
		{goal: "a small change with a big impact"},
		// A process needs no list of change verbs: the thing as it is and
		// as it is to become, or a later state under a condition, are
		// read apart; another group's word is a noun ("the frozen
		// chicken": chicken is a meat, and the thing frozen describes).
		{goal: "bake the frozen pizza until hot"},
		{goal: "melt the frozen butter in a hot pan"},
		{goal: "microwave the frozen soup until it is hot"},
		{goal: "cool the hot soup until cold"},
		{goal: "resize the large image to small"},
		{goal: "convert the private repo to public"},
		{goal: "turn the public repo private"},
		{goal: "thaw the frozen chicken and cook it hot"},
		{goal: "grill the cold steak until hot"},
		{goal: "boil the ice until it is hot water"},
		{goal: "grow the tiny seedling into a huge tree"},
		{goal: "evaporate the liquid into gas"},
		{goal: "condense the gas into a liquid"},
		{goal: "cook a vegetarian chili with bacon", options: asks("vegetarian", "bacon")},
		{goal: "resize the icon to be tiny and huge", options: asks("tiny", "huge")},
		// Sides of an action group (frequency, concurrency) in two
		// commands are about two actions; a purpose ("so it is big") is
		// what the thing is to become.
		{goal: "check the logs every day and archive them weekly"},
		{goal: "back up the photos every day, and the videos once a week"},
		{goal: "deploy the services concurrently but migrate the databases one by one"},
		{goal: "upload the large files in parallel and the small ones sequentially"},
		{goal: "zoom in on the small text so it is big"},
		// More different things.
		{goal: "split the big PR into small commits"},
		{goal: "replace the large logo with a small one"},
		{goal: "make a vegetarian lasagne and a beef ragu"},
		{goal: "take the chicken out of the freezer and put the vegan cheese in the fridge"},
		{goal: "make the public folder writable and the private one read-only"},
		{goal: "keep the hot sauce cold"},
		{goal: "a small bowl with big portions"},
	})
}
