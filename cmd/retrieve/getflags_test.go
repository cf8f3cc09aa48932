package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/ops/opstest"
	"github.com/spf13/pflag"
)

// TestGetFlagsReachTheServer: every option of `retrieve get` is a field of
// the server's retrieve request (flat, in constraints or in web), or is in
// docs/servers.md's table of options left out on purpose, with its reason.
// A new flag of get fails here until it reaches the server or is listed.
func TestGetFlagsReachTheServer(t *testing.T) {
	op, ok := opstest.New(t).Table.Lookup("retrieve")
	if !ok {
		t.Fatal("no retrieve op")
	}
	var schema struct {
		Properties map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(op.Input, &schema); err != nil {
		t.Fatal(err)
	}
	fields := map[string]bool{}
	for name, p := range schema.Properties {
		fields[name] = true
		for sub := range p.Properties {
			fields[sub] = true
		}
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "servers.md"))
	if err != nil {
		t.Fatal(err)
	}
	leftOut := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `--([a-z-]+)[ `]").FindAllStringSubmatch(string(doc), -1) {
		leftOut[m[1]] = true
	}
	if len(leftOut) < 3 {
		t.Fatalf("docs/servers.md's table of left-out options not found (%d rows)", len(leftOut))
	}
	// A flag's field: its name in snake case, a repeatable flag in the
	// plural; --session is the request's session_id.
	plural := map[string]string{"section": "sections", "param": "params", "header": "headers", "allow-host": "allow_hosts", "session": "session_id"}
	checked := 0
	newGetCmd(&Streams{}, &globalOptions{}, nil).LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" {
			return
		}
		field := strings.ReplaceAll(f.Name, "-", "_")
		if p, ok := plural[f.Name]; ok {
			field = p
		}
		checked++
		if fields[field] == leftOut[f.Name] {
			if fields[field] {
				t.Errorf("--%s reaches the server (%s) yet docs/servers.md lists it as left out", f.Name, field)
			} else {
				t.Errorf("--%s is neither a field of the server's retrieve request (%s) nor listed in docs/servers.md as left out on purpose", f.Name, field)
			}
		}
	})
	if checked < 15 {
		t.Errorf("only %d flags of get checked", checked)
	}
}

// TestSourceFlagListsEveryKind: --source's help names the kinds of every
// source the program registers (sources.New, the one list), and no other.
func TestSourceFlagListsEveryKind(t *testing.T) {
	kinds := opstest.NewFull(t).Deps.Engine.Registry().Kinds()
	f := newGetCmd(&Streams{}, &globalOptions{}, nil).Flags().Lookup("source")
	m := regexp.MustCompile(`\(([a-z, ]+)\)`).FindStringSubmatch(f.Usage)
	if m == nil {
		t.Fatalf("--source's help %q lists no kinds", f.Usage)
	}
	listed := strings.Split(m[1], ", ")
	slices.Sort(listed)
	if !slices.Equal(listed, kinds) {
		t.Errorf("--source's help lists %v; the registry's kinds are %v", listed, kinds)
	}
}
