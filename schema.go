package askonce

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// A job's specSchema is a JSON Schema (draft 2020-12 unless its $schema
// names another draft) that the plan's spec must meet. It is compiled when
// the job is created, so that a schema that cannot be used is the
// caller's error (EINVALID) rather than every plan's. References are
// resolved inside the document only: nothing is loaded from the network or
// the file system, and a $ref to anything else fails the compilation. The
// metaschemas of the drafts are built into the library and may be
// referenced.

// schemaURL is the location a spec schema is compiled at. Relative
// references resolve against it, to mem:/// URLs that refuseLoader refuses.
const schemaURL = "mem:///specSchema.json"

// refuseLoader is the loader of every spec schema compiler: it loads
// nothing, so a reference outside the document is an error.
type refuseLoader struct{}

func (refuseLoader) Load(string) (any, error) {
	return nil, errors.New("references outside the schema are not loaded")
}

// ValidSchema reports whether schema is usable as a spec schema: EINVALID
// names what is wrong with it (not a JSON object, not valid against its
// draft's metaschema, a $ref that points outside the document or to
// nothing).
func ValidSchema(schema json.RawMessage) error {
	_, err := compiled(schema)
	return err
}

// compiled compiles a spec schema. Compiled schemas are cached by
// content, so that validating each plan of a job against its schema costs
// a hash, not a compilation.
func compiled(schema json.RawMessage) (*jsonschema.Schema, error) {
	key := sha256.Sum256(schema)
	if s, ok := schemaCache.get(key); ok {
		return s, nil
	}
	s, err := compileSchema(schema)
	if err != nil {
		return nil, err
	}
	schemaCache.put(key, s)
	return s, nil
}

func compileSchema(schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, Errorf(EINVALID, "specSchema is not valid JSON: %v", err)
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, Errorf(EINVALID, "specSchema must be a JSON object")
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("add spec schema: %w", err)
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, Errorf(EINVALID, "specSchema is not a usable JSON Schema: %s", schemaProblem(err))
	}
	return s, nil
}

// schemaProblem says what is wrong with a schema that did not compile,
// in the words of the schema rather than of the compiler's internal URL.
func schemaProblem(err error) string {
	var load *jsonschema.LoadURLError
	var meta *jsonschema.SchemaValidationError
	switch {
	case errors.As(err, &load):
		ref := strings.TrimPrefix(load.URL, "mem:///")
		return fmt.Sprintf("$ref %q points outside the schema; only references inside it (such as \"#/$defs/name\") are allowed", ref)
	case errors.As(err, &meta):
		var ve *jsonschema.ValidationError
		if errors.As(meta.Err, &ve) {
			return strings.Join(violations(ve, ""), "; ")
		}
		return meta.Err.Error()
	}
	return strings.ReplaceAll(err.Error(), schemaURL, "specSchema")
}

var (
	// printer renders the library's messages.
	printer = message.NewPrinter(language.English)
	// pointerEscaper escapes a JSON pointer token (RFC 6901).
	pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")
)

// violations lists the leaves of a validation error, one message per
// violation, each prefixed by what (such as "spec") and the JSON pointer
// of the value that failed.
func violations(ve *jsonschema.ValidationError, what string) []string {
	if len(ve.Causes) == 0 {
		at := what
		if len(ve.InstanceLocation) > 0 {
			ptr := ""
			for _, tok := range ve.InstanceLocation {
				ptr += "/" + pointerEscaper.Replace(tok)
			}
			at = strings.TrimSpace(what + " at " + ptr)
		}
		msg := ve.ErrorKind.LocalizedString(printer)
		if at == "" {
			return []string{msg}
		}
		return []string{at + ": " + msg}
	}
	var out []string
	for _, c := range ve.Causes {
		out = append(out, violations(c, what)...)
	}
	return out
}

// checkSpec validates a plan's spec (already known to be a JSON object)
// against the job's spec schema and returns one message per violation.
func checkSpec(specSchema, spec json.RawMessage) []string {
	s, err := compiled(specSchema)
	if err != nil {
		// Only a job stored before its schema was checked gets here.
		return []string{ErrorMessage(err)}
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(spec))
	if err != nil {
		return []string{"spec is not valid JSON: " + err.Error()}
	}
	err = s.Validate(v)
	var ve *jsonschema.ValidationError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ve):
		return violations(ve, "spec")
	}
	return []string{"spec: " + err.Error()}
}

// schemaCache holds compiled spec schemas by the SHA-256 of their text.
// It is bounded: when full it starts over, which costs a recompilation.
var schemaCache = &compiledSchemas{m: map[[32]byte]*jsonschema.Schema{}}

const maxCachedSchemas = 256

type compiledSchemas struct {
	mu sync.Mutex
	m  map[[32]byte]*jsonschema.Schema
}

func (c *compiledSchemas) get(k [32]byte) (*jsonschema.Schema, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.m[k]
	return s, ok
}

func (c *compiledSchemas) put(k [32]byte, s *jsonschema.Schema) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCachedSchemas {
		clear(c.m)
	}
	c.m[k] = s
}
