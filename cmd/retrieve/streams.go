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
