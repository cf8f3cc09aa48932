package main

import (
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/testws"
)

// TestHintsNameTheCommand: the same errors as ops
// TestHintsNameTheToolPerTransport name the CLI command and its flags to a
// CLI user, in the envelope and on stderr — never a tool.
func TestHintsNameTheCommand(t *testing.T) {
	ws := testws.New(t)
	ws.Write("README.md", "# Title\n")
	ws.Write("blob.bin", "\x00\x01\x02binary")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"quote", "README.md", ""}, `retrieve quote REF "text"`},
		{[]string{"get", "blob.bin", "--lines", "1"}, "--format binary"},
	} {
		out, errOut, code := runCLI(t, append([]string{"--root", ws.Root}, c.args...)...)
		if code == ExitOK || !strings.Contains(out, c.want) || strings.Contains(out+errOut, "check_quote") || strings.Contains(out+errOut, "`format") {
			t.Errorf("%v: exit %d, want a hint naming %s:\n%s\n%s", c.args, code, c.want, out, errOut)
		}
	}
}
