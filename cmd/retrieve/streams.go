package main

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// Streams are the process's standard streams; tests use buffers.
type Streams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// OutTTY and ErrTTY say whether the streams are terminals: tables and
	// progress bars only go to terminals.
	OutTTY bool
	ErrTTY bool
	// JSON is --json: a failure before any output is also printed on
	// stdout as the HTTP API's error object, {"error": {code, message,
	// hint, alternatives}}, so that a script reading JSON always gets JSON.
	JSON bool
	// wrote says whether anything was written to Out (run wraps it).
	wrote *bool
}

// noteWrites is a writer that records that something was written.
type noteWrites struct {
	w     io.Writer
	wrote *bool
}

func (n noteWrites) Write(p []byte) (int, error) {
	if len(p) > 0 {
		*n.wrote = true
	}
	return n.w.Write(p)
}

func stdStreams() *Streams {
	return &Streams{
		In:     os.Stdin,
		Out:    os.Stdout,
		ErrOut: os.Stderr,
		OutTTY: isatty.IsTerminal(os.Stdout.Fd()),
		ErrTTY: isatty.IsTerminal(os.Stderr.Fd()),
	}
}
