// Command quickstart runs one clarification round trip with askonce as an
// embedded library: the embedded rules interpreter, a SQLite file, no keys,
// no network. The database is a temporary file, removed at the end, so the
// example leaves nothing behind and never writes into the ./askonce.db of
// an askonce serve started in the same folder; -db FILE keeps one.
//
//	go run ./examples/quickstart                      # "hot frozen cheese", answered "hot"
//	go run ./examples/quickstart -goal "delete the logs" -answer yes
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/sqlite"
)

func main() {
	goal := flag.String("goal", "hot frozen cheese", "the goal to plan")
	answer := flag.String("answer", "hot", "the answer to give if askonce asks")
	db := flag.String("db", "", "SQLite file to keep (default: a temporary one, removed at the end)")
	flag.Parse()
	if err := withDB(*db, func(db string) error { return run(*goal, *answer, db) }); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// withDB calls f with db, or with a file in a temporary folder removed
// afterwards when db is "".
func withDB(db string, f func(db string) error) error {
	if db != "" {
		return f(db)
	}
	dir, err := os.MkdirTemp("", "askonce-quickstart-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	return f(filepath.Join(dir, "askonce.db"))
}

func run(goal, answer, db string) error {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		return err
	}
	defer store.Close()
	interp, err := rules.New(rules.Options{})
	if err != nil {
		return err
	}
	engine := &askonce.Engine{Store: store, Interpreter: interp}

	job, err := engine.Create(ctx, askonce.CreateRequest{Goal: goal})
	if err != nil {
		return err
	}
	fmt.Printf("job %s: %s\n", job.ID, job.Status)
	if job.Status == askonce.StatusPending {
		q := job.Question
		fmt.Printf("question (%s): %s %v\n", q.Type, q.Text, q.Options)
		fmt.Printf("answering %q\n", answer)
		if job, _, err = engine.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: job.ID, Answer: askonce.TextAnswer(answer)}); err != nil {
			return err
		}
		fmt.Printf("job %s: %s\n", job.ID, job.Status)
	}
	out, _ := json.MarshalIndent(job, "", "  ")
	fmt.Println(string(out))
	return nil
}
