package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/retrieve-dev/retrieve/extract"
)

// cliName is the name under which the test binary is the CLI itself.
const cliName = "retrieve"

// TestMain makes the test binary the CLI when it runs under the name
// "retrieve" (binary links it so): the tests that run the CLI as a process
// exec this binary instead of building another with go build, which was
// the slowest step of the package (a full link, 10–20 s on a loaded
// machine). A jq sandbox child of that CLI (its executable is this
// binary) is run as main runs it.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == cliName {
		main()
	}
	if code, ok := extract.JQChildMain(os.Args, os.Stdin, os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
	shortLived = false // in process: apps are opened and closed again and again
	os.Exit(m.Run())
}
