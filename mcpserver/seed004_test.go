package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/httpapi"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// seed004Cases are seed 004's inputs, verbatim in shape, with what the
// envelope must say: success, the first error code, and a piece of the
// result.
var seed004Cases = []struct {
	name, op, in string
	ok           bool
	code, want   string
}{
	{"overview", "extract_overview", `{"operation": "extract_overview", "context": {"target": "staging token", "depth": "shallow"}}`, true, "", "deploys-need-the-staging-token.md"},
	{"overview full context", "extract_overview", `{"operation": "extract_overview", "context": {"target": "staging token", "depth": "medium", "knowledge_type": "semantic", "scope": null, "format_hints": null}}`, true, "", "deploys-need-the-staging-token.md"},
	{"overview flat", "extract_overview", `{"target": "staging token", "depth": "shallow"}`, true, "", "deploys-need-the-staging-token.md"},
	{"overview query", "extract_overview", `{"query": "staging token", "depth": "shallow"}`, true, "", "deploys-need-the-staging-token.md"},
	{"ErrFlatEmptyQuery", "extract_overview", `{"query": "", "depth": "shallow"}`, false, "INPUT_VALIDATION_FAILED", "query is required"},
	{"ErrFlatBadScope", "extract_details", `{"target": "x", "scope": "code"}`, false, "INPUT_VALIDATION_FAILED", "scope must be one of: full, section, specific (got 'code')"},
	{"details", "extract_details", `{"operation": "extract_details", "context": {"target": "memory/semantic/deploys-need-the-staging-token.md", "scope": "full"}}`, true, "", "Seen in the deploy guide."},
	{"details section", "extract_details", `{"operation": "extract_details", "context": {"target": "staging token", "scope": "section", "format_hints": "Deploys need the staging token", "depth": ""}}`, true, "", "Seen in the deploy guide."},
	{"ErrEmptyTarget", "extract_overview", `{"operation": "extract_overview", "context": {"target": "", "depth": "shallow"}}`, false, "INPUT_VALIDATION_FAILED", "context.target is required"},
	{"ErrBadDepth", "extract_overview", `{"operation": "extract_overview", "context": {"target": "x", "depth": "deep"}}`, false, "INPUT_VALIDATION_FAILED", "context.depth must be one of"},
	{"ErrUnknownOperation", "extract_overview", `{"operation": "summarize", "context": {"target": "x"}}`, false, "INVALID_OPERATION", "Unknown operation 'summarize'. Valid operations: extract_overview, extract_details"},
	{"ErrOtherOperation", "extract_details", `{"operation": "extract_overview", "context": {"target": "x"}}`, false, "INVALID_OPERATION", "sent to extract_details"},
	{"ErrNotFound", "extract_details", `{"operation": "extract_details", "context": {"target": "memory/semantic/nope.md"}}`, false, "PATH_NOT_FOUND", "File not found"},
	{"ErrForeignField", "extract_overview", `{"operation": "extract_overview", "context": {"target": "x", "scope": "full"}}`, false, "INPUT_VALIDATION_FAILED", "context.scope does not apply"},
	{"ErrTwice", "extract_overview", `{"operation": "extract_overview", "target": "a", "context": {"target": "b"}}`, false, "INPUT_VALIDATION_FAILED", "given twice"},
	{"ErrUnknownField", "extract_details", `{"operation": "extract_details", "context": {"target": "x", "colour": "red"}}`, false, "INPUT_VALIDATION_FAILED", "colour"},
}

// checkSeed004 holds an output to seed 004's envelope.
func checkSeed004(t *testing.T, name string, ok bool, code, want string, m map[string]any) {
	t.Helper()
	for _, k := range []string{"success", "operation", "result", "writes_to", "errors"} {
		if _, has := m[k]; !has {
			t.Fatalf("%s: envelope without %q: %v", name, k, m)
		}
	}
	if m["success"] != ok || m["writes_to"] != nil {
		t.Fatalf("%s: success %v writes_to %v, want %v and null: %v", name, m["success"], m["writes_to"], ok, m)
	}
	b, _ := json.Marshal(m)
	if !ok {
		errs, _ := m["errors"].([]any)
		if len(errs) == 0 {
			t.Fatalf("%s: no errors in %s", name, b)
		}
		e := errs[0].(map[string]any)
		if e["code"] != code || !strings.Contains(fmt.Sprint(e["message"], " ", e["hint"]), want) {
			t.Errorf("%s: got error %v, want %s mentioning %q", name, e, code, want)
		}
		return
	}
	if !strings.Contains(string(b), want) {
		t.Errorf("%s: result %s does not mention %q", name, b, want)
	}
}

// TestSeed004InputsMCP: seed 004's {operation, context} inputs, verbatim,
// through the MCP tools, answered in the seed's envelope.
func TestSeed004InputsMCP(t *testing.T) {
	cs := connect(t, opstest.NewFull(t))
	for _, c := range seed004Cases {
		t.Run(c.name, func(t *testing.T) {
			var args map[string]any
			if err := json.Unmarshal([]byte(c.in), &args); err != nil {
				t.Fatal(err)
			}
			res, m := call(t, cs, c.op, args)
			if res.IsError == c.ok {
				t.Errorf("isError %v, want %v", res.IsError, !c.ok)
			}
			checkSeed004(t, c.name, c.ok, c.code, c.want, m)
		})
	}
}

// TestSeed004InputsHTTP: the same inputs through POST /v1/extract_*.
func TestSeed004InputsHTTP(t *testing.T) {
	srv := httptest.NewServer(httpapi.New(opstest.NewFull(t).Table, httpapi.Options{}))
	defer srv.Close()
	for _, c := range seed004Cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := http.Post(srv.URL+"/v1/"+c.op, "application/json", strings.NewReader(c.in))
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			err = json.NewDecoder(resp.Body).Decode(&m)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if (resp.StatusCode == 200) != c.ok {
				t.Errorf("status %d, want success %v", resp.StatusCode, c.ok)
			}
			checkSeed004(t, c.name, c.ok, c.code, c.want, m)
		})
	}
}

// TestHintsNameTheTool: a hint written with the CLI command names the
// tool to an MCP client and the route to an HTTP client.
func TestHintsNameTheTool(t *testing.T) {
	env := opstest.NewFull(t)
	in := `{"operation": "extract_overview", "context": {"target": ""}}`
	var args map[string]any
	_ = json.Unmarshal([]byte(in), &args)
	_, m := call(t, connect(t, env), "extract_overview", args)
	hint := fmt.Sprint(m["errors"].([]any)[0].(map[string]any)["hint"])
	if !strings.Contains(hint, "the extract_overview tool") || strings.Contains(hint, "retrieve memory") {
		t.Errorf("MCP hint %q: want the extract_overview tool, not the CLI command", hint)
	}
	srv := httptest.NewServer(httpapi.New(env.Table, httpapi.Options{}))
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/v1/extract_overview", "application/json", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	hint = fmt.Sprint(body["errors"].([]any)[0].(map[string]any)["hint"])
	if !strings.Contains(hint, "/v1/extract_overview") || strings.Contains(hint, "retrieve memory") {
		t.Errorf("HTTP hint %q: want the route, not the CLI command", hint)
	}
}
