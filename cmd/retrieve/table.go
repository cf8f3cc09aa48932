package main

import (
	"bytes"
	"io"
	"strings"

	"github.com/retrieve-dev/retrieve/intl"
)

// table is the terminal table writer: like text/tabwriter, cells end with
// a tab and lines with a newline, but a column is as wide as its widest
// cell in terminal cells (intl.Width), so that Chinese, Japanese and Korean
// text (two cells a character) and combining accents (none) stay aligned.
// The last cell of a line is not padded.
type table struct {
	w        io.Writer
	minwidth int
	padding  int
	buf      bytes.Buffer
}

// newTable returns a table over w; minwidth and padding are tabwriter's.
func newTable(w io.Writer, minwidth, padding int) *table {
	return &table{w: w, minwidth: minwidth, padding: padding}
}

func (t *table) Write(p []byte) (int, error) { return t.buf.Write(p) }

// Flush writes the buffered lines, aligned.
func (t *table) Flush() error {
	text := strings.TrimSuffix(t.buf.String(), "\n")
	t.buf.Reset()
	if text == "" {
		return nil
	}
	var rows [][]string
	var widths []int
	for _, line := range strings.Split(text, "\n") {
		cells := strings.Split(line, "\t")
		rows = append(rows, cells)
		for i, c := range cells[:len(cells)-1] {
			if i >= len(widths) {
				widths = append(widths, t.minwidth)
			}
			widths[i] = max(widths[i], intl.Width(c)+t.padding)
		}
	}
	var out strings.Builder
	for _, cells := range rows {
		for i, c := range cells {
			if i < len(cells)-1 {
				out.WriteString(c + strings.Repeat(" ", widths[i]-intl.Width(c)))
				continue
			}
			out.WriteString(c)
		}
		out.WriteByte('\n')
	}
	_, err := io.WriteString(t.w, out.String())
	return err
}
