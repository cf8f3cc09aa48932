package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
)

func TestVersion(t *testing.T) {
	b := retrieve.Build()
	want := "retrieve " + b.String() + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, errOut, code := runCLI(t, args...)
		if code != ExitOK || out != want {
			t.Errorf("%v: code %d, out %q, want %q (stderr %s)", args, code, out, want, errOut)
		}
	}
	out, _, code := runCLI(t, "version", "--json")
	var got retrieve.BuildInfo
	if code != ExitOK || json.Unmarshal([]byte(out), &got) != nil || got != b {
		t.Fatalf("version --json: code %d, %s, want %+v", code, out, b)
	}
	if !strings.Contains(out, `"commit"`) || !strings.Contains(out, `"dirty"`) {
		t.Errorf("version --json lacks fields: %s", out)
	}
	if _, errOut, code := runCLI(t, "version", "extra"); code == ExitOK {
		t.Errorf("version extra: code %d, %s", code, errOut)
	}
}
