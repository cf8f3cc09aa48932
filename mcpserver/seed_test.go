package mcpserver_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/extract/codeparser"
	"github.com/retrieve-dev/retrieve/httpapi"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/internal/webclient"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/ops/opstest"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/source/web"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// loopbackResolver answers every name with 127.0.0.1, and the tripwire
// refuses any other address before connecting: nothing leaves the machine.
type loopbackResolver struct{}

func (loopbackResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

func loopbackOnly(t *testing.T) func(string, string, syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil || !ap.Addr().Unmap().IsLoopback() {
			t.Errorf("tripwire: a dial to %s reached the dialer", address)
			return fmt.Errorf("tripwire: refused %s", address)
		}
		return nil
	}
}

// seedEnv is a workspace with the files of seed 002's examples and the web
// source, whose https://api.example.com is a loopback TLS test server.
func seedEnv(t *testing.T) *opstest.Env {
	t.Helper()
	api := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/docs/v2/endpoints" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"version": "2.0.0", "endpoints": [{"path": "/users", "methods": ["GET", "POST"], "auth_required": true}]}`)
	}))
	t.Cleanup(api.Close)
	_, port, _ := strings.Cut(strings.TrimPrefix(api.URL, "https://"), ":")
	pool := x509.NewCertPool()
	pool.AddCert(api.Certificate())
	client := webclient.New(webclient.Options{Allow: []string{"127.0.0.1/32"}, Resolver: loopbackResolver{}, Control: loopbackOnly(t),
		Ports: map[string]string{"443": port}, RootCAs: pool, Rate: -1, Retries: -1, Timeout: 5 * time.Second})
	ws := testws.New(t)
	ws.Write("config/database.yml", "development:\n  adapter: postgresql\n  host: localhost\n  database: myapp_dev\nproduction:\n  adapter: postgresql\n  host: \"${DATABASE_HOST}\"\n  database: myapp_prod\n  pool: 25\n")
	ws.Write("src/models/user.ts", "interface UserAttributes {\n  id: string;\n  email: string;\n}\n\nconst x = 1;\n\nclass User implements UserAttributes {\n  id: string;\n  email: string;\n  constructor(attrs: UserAttributes) {\n    Object.assign(this, attrs);\n  }\n}\n")
	src, err := file.New(file.Options{Root: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = src.Close() })
	st, err := sqlite.OpenStore(context.Background(), filepath.Join(t.TempDir(), "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	eng, err := engine.New(engine.Options{Sources: []retrieve.Source{src, web.New(web.Options{Client: client})}, Store: st, SpoolDir: t.TempDir(), Code: codeparser.New()})
	if err != nil {
		t.Fatal(err)
	}
	d := ops.Deps{Engine: eng, Store: st}
	return &opstest.Env{WS: ws, Table: ops.Core(d), Deps: d}
}

// The three example inputs of seed 002, verbatim (YAML turned to JSON).
var seedInputs = map[string]string{
	"example 1": `{"target": "config/database.yml", "source": "file"}`,
	"example 2": `{"target": "https://api.example.com/docs/v2/endpoints", "source": "web", "format": "json"}`,
	"example 3": `{"target": "src/models/user.ts", "source": "file", "constraints": {"lines": "1-50", "sections": ["interface", "class"]}}`,
}

func checkSeedResult(t *testing.T, name string, m map[string]any) {
	t.Helper()
	if m["error"] != nil {
		t.Fatalf("%s: %v", name, m["error"])
	}
	data := m["retrieved"].(map[string]any)["data"]
	switch name {
	case "example 1":
		if !strings.Contains(fmt.Sprint(data), "myapp_prod") {
			t.Errorf("%s: data %v", name, data)
		}
	case "example 2":
		if d, ok := data.(map[string]any); !ok || d["version"] != "2.0.0" {
			t.Errorf("%s: data %v is not the parsed JSON", name, data)
		}
	case "example 3":
		s := fmt.Sprint(data)
		if !strings.Contains(s, "interface UserAttributes") || !strings.Contains(s, "class User") || strings.Contains(s, "const x") {
			t.Errorf("%s: data %q is not the interface and the class", name, s)
		}
		if f := m["extraction"].(map[string]any)["applied_filters"].(map[string]any); f["lines"] != "1-50" {
			t.Errorf("%s: applied filters %v", name, f)
		}
	}
}

// TestSeed002InputsMCP: seed 002's example inputs, verbatim, through the
// MCP retrieve tool.
func TestSeed002InputsMCP(t *testing.T) {
	testws.NeedsCgo(t, "TypeScript")
	cs := connect(t, seedEnv(t))
	for name, in := range seedInputs {
		var args map[string]any
		if err := json.Unmarshal([]byte(in), &args); err != nil {
			t.Fatal(err)
		}
		_, m := call(t, cs, "retrieve", args)
		checkSeedResult(t, name, m)
	}
}

// TestSeed002InputsHTTP: the same inputs through POST /v1/retrieve.
func TestSeed002InputsHTTP(t *testing.T) {
	testws.NeedsCgo(t, "TypeScript")
	srv := httptest.NewServer(httpapi.New(seedEnv(t).Table, httpapi.Options{}))
	defer srv.Close()
	for name, in := range seedInputs {
		resp, err := http.Post(srv.URL+"/v1/retrieve", "application/json", strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		err = json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: status %d, %v: %v", name, resp.StatusCode, err, m)
		}
		checkSeedResult(t, name, m)
	}
}

// TestRetrieveShapes: flat and nested forms agree, conflicts and unknown
// constraint keys are refused with the known keys listed, target objects
// and SQL options decode.
func TestRetrieveShapes(t *testing.T) {
	env := opstest.New(t)
	cs := connect(t, env)
	for _, args := range []string{
		`{"target": "notes.txt", "lines": "2-3"}`,
		`{"target": "notes.txt", "constraints": {"lines": "2-3"}}`,
		`{"target": {"path": "notes.txt"}, "lines": "2-3", "constraints": {"lines": "2-3"}}`,
	} {
		var a map[string]any
		_ = json.Unmarshal([]byte(args), &a)
		_, m := call(t, cs, "retrieve", a)
		if got := m["retrieved"].(map[string]any)["data"]; got != "beta\ngamma\n" {
			t.Errorf("%s: data %q", args, got)
		}
	}
	for args, want := range map[string]string{
		`{"target": "notes.txt", "lines": "1", "constraints": {"lines": "2"}}`:   "given twice",
		`{"target": "notes.txt", "constraints": {"lines": "1", "filters": "x"}}`: "known keys: bytes, lines, max_bytes, max_rows, pages, params, query, raw, sections, select, version",
		`{"target": {"path": "a", "url": "b"}}`:                                  "exactly one",
		`{"target": "notes.txt", "web": {"allow_hosts": ["10.0.0.1"]}}`:          "allow_hosts",
		`{"target": "notes.txt", "nope": 1}`:                                     "known fields",
	} {
		var a map[string]any
		_ = json.Unmarshal([]byte(args), &a)
		res, m := call(t, cs, "retrieve", a)
		e, _ := m["error"].(map[string]any)
		if !res.IsError || e["code"] != "INPUT_VALIDATION_FAILED" || !strings.Contains(fmt.Sprint(e["message"], e["hint"]), want) {
			t.Errorf("%s: want INPUT_VALIDATION_FAILED mentioning %q, got %v", args, want, e)
		}
	}
	_, req, err := ops.DecodeRetrieve([]byte(`{"target": {"reference": "sql:app", "query": "SELECT 1 WHERE $1", "params": ["x"]}, "max_rows": 5, "web": {"max_age": "10m", "pages": 2}}`))
	if err != nil || req.Target != "sql:app" || req.Constraints.Query != "SELECT 1 WHERE $1" || req.Constraints.MaxRows != 5 ||
		len(req.Constraints.Params) != 1 || req.Web.MaxAge != "10m" || req.Web.Pages != 2 {
		t.Errorf("decoded %+v, %v", req, err)
	}
}
