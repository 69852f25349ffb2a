package exec_test

import (
	"log"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/exec"
)

// Run the example plug-in as the interpreter.
func ExampleNew() {
	interp, err := exec.New(exec.Config{Command: []string{"python3", "examples/exec-plugin/plugin.py"}})
	if err != nil {
		log.Fatal(err)
	}
	var store askonce.Store // sqlite.Open(ctx, "askonce.db")
	_ = &askonce.Engine{Store: store, Interpreter: interp}
}
