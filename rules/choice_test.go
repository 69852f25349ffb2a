package rules

import "testing"

func TestChoiceAsksOnlyForAChoiceThatIsTheObjectOfTheCommand(t *testing.T) {
	t.Parallel()
	runDetector(t, func(in *input) *asked { r := detectChoices(in); return &r.asked }, []detectorCase{
		{goal: "deploy to staging or production", options: asks("staging", "production"), text: "“staging” or “production”"},
		{goal: "deploy to staging or production?", options: asks("staging", "production")},
		{goal: "please switch to Google Maps or Apple Maps", options: asks("Google Maps", "Apple Maps")},
		{goal: "pick the red cup or the blue cup", options: asks("red cup", "blue cup")},
		{goal: "read George R.R. Martin or Robert Jordan", options: asks("George R.R. Martin", "Robert Jordan")},
		{goal: "install Postgres or MySQL or SQLite", options: asks("Postgres", "MySQL", "SQLite")},
		{goal: "upgrade to v1.4 or v2.0", options: asks("v1.4", "v2.0")},
		{goal: "can you migrate to BigQuery or Snowflake", options: asks("BigQuery", "Snowflake")},
		// After the direct object.
		{goal: "push the image to dev or qa", options: asks("dev", "qa")},
		{goal: "write the parser in Go or Rust", options: asks("Go", "Rust")},
		{goal: "host it on Fly.io or Render", options: asks("Fly.io", "Render")},
		{goal: "set the timeout on the gateway or the client?", options: asks("gateway", "client")},
		{goal: "deploy to staging or production", answer: "banana", options: asks("staging", "production")},
		// Settled by the answer.
		{goal: "deploy to staging or production", answer: "prod"},
		{goal: "deploy to staging or production", answer: "Production"},
		// The user's own question, a classification, comparison or topic.
		{goal: "Is Postgres or MySQL older?"},
		{goal: "should I use postgres or sqlite for the cache"},
		{goal: "Should we use Postgres or MySQL for the analytics service?"},
		{goal: "shall we ship the beta on Monday or Thursday?"},
		{goal: "Which is larger, Lagos or Cairo?"},
		{goal: "Is the octopus a vertebrate or an invertebrate?"},
		{goal: "classify each item as solid, liquid or gas"},
		{goal: "label the failing tests as flaky or broken"},
		{goal: "compare the speed of Go and Rust or Zig"},
		{goal: "compare Go or Rust for small tools"},
		{goal: "rank Vim or Emacs by startup time"},
		{goal: "ask Priya if she wants Python or Go"},
		{goal: "write an essay about cats or dogs as pets"},
		{goal: "write a blog post about tabs or spaces"},
		// Negation, free choice, suggestion, purpose, both meant.
		{goal: "crack the eggs, careful not to break the yolk or get shells in the bowl"},
		{goal: "don't use tabs or spaces"},
		{goal: "never push the image to dev or qa"},
		{goal: "season with salt or pepper to taste"},
		{goal: "add salt or pepper as desired"},
		{goal: "serve with ketchup or mustard"},
		{goal: "serve hot or cold"},
		{goal: "keep the oil for frying or baking"},
		{goal: "remove any dirt or beards from the mussels"},
		{goal: "use either the red or the blue pen"},
		{goal: "push the image to dev or qa, whichever is idle"},
		{goal: "book the flight on Delta or United, either is fine"},
		{goal: "push the image to dev or qa, then clean up any old tags", options: asks("dev", "qa")},
		// Numbers, conditions and fixed phrases.
		{goal: "retry the request 2 or 3 times"},
		{goal: "bake 20 minutes or until golden"},
		{goal: "wait a minute or so"},
		{goal: "add one or two drops of vanilla"},
		// A bare object that names no name is a substitution; any one will do.
		{goal: "use olive oil or butter for the pan"},
		{goal: "add milk or water to thin the batter"},
		{goal: "install postgres or mysql"}, // lower-case names are missed: no lexicon tells them from milk
		{goal: "grab a towel or a rag and wipe the spill"},
		{goal: "take the train or a taxi"},
		// Not the object of the main verb.
		{goal: "simmer the beans in stock or water"},
		{goal: "store the flour in a jar or a tin"},
		{goal: "find a hotel in Rome or Milan"},
		{goal: "name two rivers in Peru or Chile"},
		{goal: "Would you rather visit Oslo or Bergen?"},
		{goal: "the report must be in markdown or html"},
		{goal: "check whether the build passes or fails"},
	})
}
