package main

import (
	"strings"

	"github.com/retrieve-dev/retrieve"
)

// palette colours text for a terminal, in the conventions of gh and
// kubectl: on only when standard output is a terminal, NO_COLOR is unset and
// TERM is not "dumb", unless --color always|never says otherwise.
type palette struct{ on bool }

// colorOn decides the palette of a command from --color (auto, always,
// never), the streams and the environment (https://no-color.org).
func colorOn(mode string, io *Streams, getenv func(string) string) (palette, error) {
	switch mode {
	case "", "auto":
		return palette{on: io.OutTTY && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"}, nil
	case "always":
		return palette{on: true}, nil
	case "never":
		return palette{}, nil
	}
	return palette{}, retrieve.Errorf(retrieve.CodeInputValidation, "--color %q: want auto, always or never", mode).
		WithHint("e.g. --color never (NO_COLOR=1 in the environment does the same)")
}

func (p palette) wrap(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p palette) red(s string) string    { return p.wrap("31", s) }
func (p palette) green(s string) string  { return p.wrap("32", s) }
func (p palette) yellow(s string) string { return p.wrap("33", s) }
func (p palette) cyan(s string) string   { return p.wrap("36", s) }
func (p palette) dim(s string) string    { return p.wrap("2", s) }
func (p palette) bold(s string) string   { return p.wrap("1", s) }

// status colours a verification or result status.
func (p palette) status(s string) string {
	switch s {
	case retrieve.Verified, "ok", "fresh":
		return p.green(s)
	case retrieve.Changed, "stale":
		return p.yellow(s)
	case retrieve.Unavailable, "error":
		return p.red(s)
	}
	return s
}

// diff colours a unified diff: headers bold, hunks cyan, removed lines
// red, added lines green.
func (p palette) diff(d string) string {
	if !p.on {
		return d
	}
	lines := strings.SplitAfter(d, "\n")
	var b strings.Builder
	for _, l := range lines {
		body := strings.TrimSuffix(l, "\n")
		nl := l[len(body):]
		switch {
		case strings.HasPrefix(body, "+++"), strings.HasPrefix(body, "---"):
			b.WriteString(p.bold(body))
		case strings.HasPrefix(body, "@@"):
			b.WriteString(p.cyan(body))
		case strings.HasPrefix(body, "+"):
			b.WriteString(p.green(body))
		case strings.HasPrefix(body, "-"):
			b.WriteString(p.red(body))
		default:
			b.WriteString(body)
		}
		b.WriteString(nl)
	}
	return b.String()
}
