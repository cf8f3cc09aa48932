// Package testproc plays roles of a test in other processes: the test
// binary runs itself again, once per role, running only the calling test,
// which sees its role with Role and plays it instead of the parent's part.
// The two-process tests (a writer and a forgetter on one store) use it.
package testproc

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// roleEnv names the role a child plays, argEnv what it plays it on (a
// store file, a URL, a folder).
const (
	roleEnv = "RETRIEVE_TESTPROC_ROLE"
	argEnv  = "RETRIEVE_TESTPROC_ARG"
	doneMsg = "testproc: role done"
)

// Role returns the role this process plays and its argument; role is ""
// in the parent.
func Role() (role, arg string) {
	return os.Getenv(roleEnv), os.Getenv(argEnv)
}

// Done tells the parent the child played its role to the end (a child
// whose test returned early, or was skipped, fails Run).
func Done(t testing.TB) {
	t.Log(doneMsg)
}

// Run runs t's test in one child process per role, all at once, each with
// its role and arg, and waits for them: t fails when one fails or did not
// call Done.
func Run(t testing.TB, arg string, roles ...string) {
	t.Helper()
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for _, role := range roles {
		cmd := exec.Command(os.Args[0], "-test.run", runPattern(t.Name()), "-test.count", "1", "-test.v")
		cmd.Env = append(os.Environ(), roleEnv+"="+role, argEnv+"="+arg)
		out := &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child %s: %v\n%s", roles[i], err, outs[i])
		}
		if !strings.Contains(outs[i].String(), doneMsg) {
			t.Fatalf("child %s did not play its role:\n%s", roles[i], outs[i])
		}
	}
}

// runPattern is the -test.run pattern of exactly the test (or subtest)
// named name.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}
