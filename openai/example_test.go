package openai_test

import (
	"context"
	"log"
	"os"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/openai"
	"github.com/askonce/askonce/sqlite"
)

// Select the openai interpreter from ASKONCE_OPENAI_* variables, e.g.
// ASKONCE_OPENAI_BASE_URL=http://127.0.0.1:11434/v1 and
// ASKONCE_OPENAI_MODEL=llama3.1:8b for Ollama.
func ExampleConfigFromEnv() {
	ctx := context.Background()
	cfg, err := openai.ConfigFromEnv(os.Getenv)
	if err != nil {
		log.Fatal(err)
	}
	interp, err := openai.New(cfg)
	if err != nil {
		log.Fatal(err) // e.g. "openai: model is required (...)"
	}
	store, err := sqlite.Open(ctx, "askonce.db")
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	engine := &askonce.Engine{Store: store, Interpreter: interp}
	job, err := engine.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese"})
	if err != nil {
		log.Fatal(err)
	}
	log.Println(job.Status)
}
