// Command retrieve fetches a known thing from a known place and returns it
// with a citation that can be checked again later. See README.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/retrieve-dev/retrieve/extract"
)

func main() {
	// A jq sandbox child (see extract.JQSandbox) does nothing else.
	if code, ok := extract.JQChildMain(os.Args, os.Stdin, os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
	installFallbackRoots()
	// Untrusted jq expressions run in children of this very binary, each
	// bounded in memory by the kernel. Tests that run the CLI in-process
	// leave it unset (their executable is the test binary).
	if exe, err := os.Executable(); err == nil {
		extract.SetJQSandbox(&extract.JQSandbox{Path: exe})
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, stdStreams(), os.Args[1:])
	stop()
	os.Exit(code)
}

// run executes the CLI with args and returns the process exit code.
func run(ctx context.Context, io *Streams, args []string) int {
	if io.wrote == nil {
		io.wrote = new(bool)
		io.Out = noteWrites{w: io.Out, wrote: io.wrote}
	}
	cmd := newRootCmdFor(io, args)
	cmd.SetArgs(args)
	cmd.SetIn(io.In)
	cmd.SetOut(io.Out)
	cmd.SetErr(io.ErrOut)
	if c, err := cmd.ExecuteContextC(ctx); err != nil {
		if ee, ok := err.(*exitError); ok {
			return ee.code
		}
		fmt.Fprintln(io.ErrOut, "retrieve:", err)
		// A wrong command line (missing or extra arguments, an unknown
		// flag) gets the usage line and where to read more, as gh does.
		if c != nil {
			fmt.Fprintf(io.ErrOut, "usage: %s\n", c.UseLine())
			fmt.Fprintf(io.ErrOut, "run '%s --help' for the flags and examples\n", c.CommandPath())
		}
		return ExitUsage
	}
	return ExitOK
}
