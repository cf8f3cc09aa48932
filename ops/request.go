package ops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/retrieve-dev/retrieve"
)

// RetrieveInput is the input of the retrieve tool and POST /v1/retrieve:
// the CLI's request (retrieve.Request) in either of two shapes, which may
// be mixed when they agree:
//
//   - flat: {"target": "notes.txt", "lines": "3-5", "query": …}
//   - the seed's nested shape: {"target": "notes.txt", "source": "file",
//     "format": "text", "constraints": {"lines": "3-5", "sections": […]}}
//
// target is a string or an object ({"path"|"url"|"reference": …}, with
// "query"/"params" for SQL). Options left out on purpose, for security,
// are listed in docs/servers.md: web.allow_hosts, web.headers,
// web.ignore_robots and --batch.
type RetrieveInput struct {
	Target      TargetArg       `json:"target"`
	Source      string          `json:"source,omitempty"`
	Format      string          `json:"format,omitempty"`
	Constraints *ConstraintsArg `json:"constraints,omitempty"`
	Flat        retrieveFlat    `json:"-"`
	NoRecord    bool            `json:"no_record,omitempty"`
	Fallback    string          `json:"fallback,omitempty"`
	Web         *WebArg         `json:"web,omitempty"`
	Budget      *int            `json:"budget,omitempty"`
	// SessionID joins the retrieval to an agent session (docs/sessions.md).
	SessionID string `json:"session_id,omitempty"`
}

// retrieveFlat is the flat form of the constraints.
type retrieveFlat = retrieve.Constraints

// WebArg are the web and api options a server caller may set.
type WebArg struct {
	MaxAge string `json:"max_age,omitempty"`
	Method string `json:"method,omitempty"`
	Pages  int    `json:"pages,omitempty"`
}

// TargetArg is a target: a string, or an object naming it.
type TargetArg struct {
	Ref    string
	Query  string
	Params []string
}

// targetKeys are the keys of a target object; exactly one of the first
// five names the target.
var targetKeys = []string{"path", "url", "reference", "uri", "id", "query", "params"}

// UnmarshalJSON reads a string or an object.
func (t *TargetArg) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &t.Ref)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return inputError("target must be a string or an object with one of path, url, reference")
	}
	n := 0
	for k, v := range m {
		switch k {
		case "path", "url", "reference", "uri", "id":
			n++
			if err := json.Unmarshal(v, &t.Ref); err != nil {
				return inputError("target.%s must be a string", k)
			}
		case "query":
			if err := json.Unmarshal(v, &t.Query); err != nil {
				return inputError("target.query must be a string")
			}
		case "params":
			if err := json.Unmarshal(v, &t.Params); err != nil {
				return inputError("target.params must be an array of strings")
			}
		default:
			return inputError("target has an unknown key %q; known keys: %s", k, strings.Join(targetKeys, ", "))
		}
	}
	if n != 1 {
		return inputError("a target object names exactly one of path, url, reference, uri or id")
	}
	return nil
}

// ConstraintsArg is the seed's nested constraints object.
type ConstraintsArg struct {
	C    retrieve.Constraints
	keys map[string]bool
}

// UnmarshalJSON decodes the constraints strictly: an unknown key is an
// error that lists the known ones.
func (c *ConstraintsArg) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return inputError("constraints must be an object")
	}
	known := constraintKeys()
	c.keys = map[string]bool{}
	for k := range m {
		if !known[k] {
			return inputError("constraints has an unknown key %q; known keys: %s", k, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
		}
		c.keys[k] = true
	}
	if err := json.Unmarshal(b, &c.C); err != nil {
		return inputError("constraints: %s", cleanJSONError(err))
	}
	return nil
}

func inputError(format string, args ...any) error {
	return retrieve.Errorf(retrieve.CodeInputValidation, format, args...).
		WithHint("pass a JSON object that matches the tool's input schema")
}

// constraintKeys are the JSON names of retrieve.Constraints (a set made
// once: do not change it).
var constraintKeys = sync.OnceValue(func() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeFor[retrieve.Constraints]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			keys[name] = true
		}
	}
	return keys
})

// DecodeRetrieve decodes a retrieve input, flat or nested, and returns
// the engine request. Unknown fields are refused; a value given both flat
// and nested (or in a target object) must be the same.
func DecodeRetrieve(raw json.RawMessage) (*RetrieveInput, retrieve.Request, error) {
	if in, req, ok := decodeRetrieveFlat(raw); ok {
		return in, req, nil
	}
	return decodeRetrieve(raw)
}

// decodeRetrieveFlat decodes the common input, flat with a string target,
// in one strict pass (the top-level fields and the flat constraints are
// disjoint sets of keys); ok is false for anything else — the nested
// shape, a target object, any error — which decodeRetrieve decodes, with
// its checks and its messages.
func decodeRetrieveFlat(raw json.RawMessage) (*RetrieveInput, retrieve.Request, bool) {
	var in RetrieveInput
	both := struct {
		*RetrieveInput
		*retrieveFlat
	}{&in, &in.Flat}
	if Decode(raw, &both) != nil || in.Constraints != nil || in.Target.Query != "" || in.Target.Params != nil || in.Target.Ref == "" {
		return nil, retrieve.Request{}, false
	}
	req := retrieve.Request{Target: in.Target.Ref, Source: in.Source, Format: in.Format, NoRecord: in.NoRecord, Fallback: in.Fallback, Constraints: in.Flat}
	if in.Web != nil {
		req.Web = retrieve.WebOptions{MaxAge: in.Web.MaxAge, Method: in.Web.Method, Pages: in.Web.Pages}
	}
	return &in, req, true
}

// decodeRetrieve decodes any input shape: the top level into its fields
// and the flat constraints apart, then the nested constraints merged.
func decodeRetrieve(raw json.RawMessage) (*RetrieveInput, retrieve.Request, error) {
	var in RetrieveInput
	// The top level: the fields above plus the flat constraint keys.
	var m map[string]json.RawMessage
	if len(bytes.TrimSpace(raw)) > 0 && string(bytes.TrimSpace(raw)) != "null" {
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, retrieve.Request{}, badArguments(err)
		}
	}
	flatKeys := constraintKeys()
	top := map[string]json.RawMessage{}
	flat := map[string]json.RawMessage{}
	for k, v := range m {
		if flatKeys[k] {
			flat[k] = v
		} else {
			top[k] = v
		}
	}
	if err := decodeMap(top, &in); err != nil {
		return nil, retrieve.Request{}, err
	}
	if err := decodeMap(flat, &in.Flat); err != nil {
		return nil, retrieve.Request{}, err
	}
	req := retrieve.Request{Target: in.Target.Ref, Source: in.Source, Format: in.Format, NoRecord: in.NoRecord, Fallback: in.Fallback}
	if in.Web != nil {
		req.Web = retrieve.WebOptions{MaxAge: in.Web.MaxAge, Method: in.Web.Method, Pages: in.Web.Pages}
	}
	c := in.Flat
	if in.Constraints != nil {
		if err := mergeConstraints(&c, in.Constraints.C, flat, in.Constraints.keys); err != nil {
			return nil, retrieve.Request{}, err
		}
	}
	if in.Target.Query != "" || in.Target.Params != nil {
		tc := retrieve.Constraints{Query: in.Target.Query, Params: in.Target.Params}
		keys := map[string]bool{"query": in.Target.Query != "", "params": in.Target.Params != nil}
		present := map[string]json.RawMessage{}
		if c.Query != "" {
			present["query"] = nil
		}
		if c.Params != nil {
			present["params"] = nil
		}
		if err := mergeConstraints(&c, tc, present, keys); err != nil {
			return nil, retrieve.Request{}, err
		}
	}
	req.Constraints = c
	if req.Target == "" {
		return nil, retrieve.Request{}, retrieve.Errorf(retrieve.CodeInputValidation, "target is required").
			WithHint(`pass {"target": "README.md"} (a path, a URL or a reference)`)
	}
	return &in, req, nil
}

// mergeConstraints adds the nested values to c; a key given in both forms
// with different values is an error.
func mergeConstraints(c *retrieve.Constraints, nested retrieve.Constraints, flat map[string]json.RawMessage, keys map[string]bool) error {
	cv := reflect.ValueOf(c).Elem()
	nv := reflect.ValueOf(nested)
	t := cv.Type()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if !keys[name] {
			continue
		}
		if _, both := flat[name]; both && !reflect.DeepEqual(cv.Field(i).Interface(), nv.Field(i).Interface()) {
			return retrieve.Errorf(retrieve.CodeInputValidation, "%s is given twice with different values (%v and constraints.%s %v)",
				name, cv.Field(i).Interface(), name, nv.Field(i).Interface()).
				WithHint("give it once: flat (%q) or inside constraints", name)
		}
		cv.Field(i).Set(nv.Field(i))
	}
	return nil
}

func decodeMap(m map[string]json.RawMessage, v any) error {
	if len(m) == 0 {
		return nil
	}
	b, _ := json.Marshal(m)
	if err := Decode(b, v); err != nil {
		if re, ok := err.(*retrieve.Error); ok && strings.Contains(re.Message, "unknown field") {
			return re.WithHint("known fields: %s", strings.Join(retrieveFields(), ", "))
		}
		return err
	}
	return nil
}

// retrieveFields are the top-level fields retrieve accepts.
func retrieveFields() []string {
	keys := maps.Clone(constraintKeys())
	for _, k := range []string{"target", "source", "format", "constraints", "no_record", "fallback", "web", "budget", "session_id"} {
		keys[k] = true
	}
	return slices.Sorted(maps.Keys(keys))
}

// retrieveInputProps are the properties of retrieve's input schema but
// source, generated from retrieve.Constraints (the CLI's constraint flags)
// and the fields above: every option of `retrieve get` but those left out
// for security. Built on first use: the reflection costs about half a
// millisecond, which a CLI retrieval does not spend.
var retrieveInputProps = sync.OnceValue(func() map[string]any {
	cs, err := jsonschema.ForType(reflect.TypeFor[retrieve.Constraints](), &jsonschema.ForOptions{})
	if err != nil {
		panic(fmt.Sprintf("ops: schema of retrieve.Constraints: %v", err))
	}
	props := map[string]any{}
	for name, p := range cs.Properties {
		b, _ := json.Marshal(p)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		if ts, ok := m["type"].([]any); ok && len(ts) == 2 && ts[0] == "null" {
			m["type"] = ts[1] // optional, not nullable: no type unions
		}
		props[name] = m
	}
	props["target"] = map[string]any{"type": "string", "minLength": 1,
		"description": "A path (README.md:1-20), URL or reference (git:REV:PATH, sql:CONN, memory:…), or {\"path\"|\"url\"|\"reference\": …}.",
		"examples":    []any{"README.md", "docs/guide.md:10-40"}}
	formats := make([]any, len(retrieve.RequestFormats))
	for i, f := range retrieve.RequestFormats {
		formats[i] = f
	}
	props["format"] = map[string]any{"type": "string", "enum": formats, "description": "Parse as this (binary: base64); detected if left out."}
	props["constraints"] = map[string]any{"type": "object", "description": "Seed 002's nested form of the fields above."}
	props["no_record"] = map[string]any{"type": "boolean", "description": "Leave it out of the ledger."}
	props["fallback"] = map[string]any{"type": "string", "enum": []any{"snapshot"}, "description": "snapshot: serve the last snapshot when the live read fails."}
	props["web"] = map[string]any{"type": "object", "additionalProperties": false, "description": "Web/api options.",
		"properties": map[string]any{
			"max_age": map[string]any{"type": "string", "description": "A snapshot this young will do (10m)."},
			"method":  map[string]any{"type": "string", "enum": []any{"GET", "HEAD"}, "description": "api: HTTP method."},
			"pages":   map[string]any{"type": "integer", "minimum": 1, "description": "api: Link pages to follow."},
		}}
	props["budget"] = map[string]any{"type": "integer", "minimum": MinBudget, "description": "Message budget in bytes (default 40000)."}
	var sid map[string]any
	if err := json.Unmarshal([]byte("{"+SessionIDArg+"}"), &sid); err != nil {
		panic(err)
	}
	props["session_id"] = sid["session_id"]
	return props
})

// retrieveInputSchema is retrieve's input schema; its source enum is the
// kinds of the engine's registry, so a source registered once is offered
// by every server (and a kind the engine lacks is refused by the schema,
// not by a failed retrieval).
func retrieveInputSchema(kinds []string) json.RawMessage {
	props := maps.Clone(retrieveInputProps())
	enum := make([]any, len(kinds))
	for i, k := range kinds {
		enum[i] = k
	}
	props["source"] = map[string]any{"type": "string", "enum": enum, "description": "Source kind; inferred if left out."}
	s := map[string]any{"type": "object", "additionalProperties": false, "required": []any{"target"}, "properties": props,
		"examples": []any{map[string]any{"target": "README.md", "lines": "1-20"}, map[string]any{"target": "src/models/user.ts", "source": "file", "constraints": map[string]any{"lines": "1-50", "sections": []any{"interface", "class"}}}}}
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}
