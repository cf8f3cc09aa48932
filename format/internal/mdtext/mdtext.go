// Package mdtext builds the Markdown text of an office document or e-book
// together with its parts and sections (format.Text): blocks are separated
// by a blank line, a part covers its block and the newline that ends it, and
// sections end where the next heading of the same or a higher level starts.
// The text stays within Limits.MaxText and the parts within Limits.MaxParts.
package mdtext

import (
	"fmt"
	"strings"

	"github.com/retrieve-dev/retrieve/format"
)

// Builder accumulates a document's text, parts and sections.
type Builder struct {
	sb       strings.Builder
	parts    []format.Part
	sections []format.Section
	lim      format.Limits
	kinds    map[string]int
}

// New returns a Builder within lim (zero fields defaulted).
func New(lim format.Limits) *Builder {
	return &Builder{lim: lim.WithDefaults(), kinds: map[string]int{}}
}

// Len is the length of the text so far.
func (b *Builder) Len() int { return b.sb.Len() }

// Part adds a part holding block (a newline is added when block does not
// end with one; a blank line separates it from the previous block). Its
// Index is its position among the parts of kind; fragment and label are
// formatted from that index when they hold a %d.
func (b *Builder) Part(kind, label, fragment, block string) (format.Part, error) {
	if len(b.parts) >= b.lim.MaxParts {
		return format.Part{}, fmt.Errorf("%w: more than %d parts", format.ErrTooLarge, b.lim.MaxParts)
	}
	b.kinds[kind]++
	idx := b.kinds[kind]
	if strings.Contains(fragment, "%d") {
		fragment = fmt.Sprintf(fragment, idx)
	}
	if strings.Contains(label, "%d") {
		label = fmt.Sprintf(label, idx)
	}
	start, err := b.block(block)
	if err != nil {
		return format.Part{}, err
	}
	p := format.Part{Kind: kind, Index: idx, Label: label, Fragment: fragment, Start: start, End: b.sb.Len()}
	b.parts = append(b.parts, p)
	return p, nil
}

// PartIndexed is Part with an index chosen by the caller (the notes of
// slide 3 are notes 3, whichever slides before it have notes).
func (b *Builder) PartIndexed(kind string, idx int, label, fragment, block string) (format.Part, error) {
	if len(b.parts) >= b.lim.MaxParts {
		return format.Part{}, fmt.Errorf("%w: more than %d parts", format.ErrTooLarge, b.lim.MaxParts)
	}
	start, err := b.block(block)
	if err != nil {
		return format.Part{}, err
	}
	p := format.Part{Kind: kind, Index: idx, Label: label, Fragment: fragment, Start: start, End: b.sb.Len()}
	b.parts = append(b.parts, p)
	return p, nil
}

// Count is how many parts of kind were added.
func (b *Builder) Count(kind string) int { return b.kinds[kind] }

// Section opens a section titled title at level starting at the next block.
func (b *Builder) Section(title string, level int) {
	start := b.sb.Len()
	if start > 0 {
		start++ // the blank line the next block writes first
	}
	b.sections = append(b.sections, format.Section{Title: title, Level: level, Start: start})
}

// block writes text as one block and returns where it starts.
func (b *Builder) block(text string) (int, error) {
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	sep := 0
	if b.sb.Len() > 0 {
		sep = 1
	}
	if int64(b.sb.Len()+sep+len(text)) > b.lim.MaxText {
		return 0, fmt.Errorf("%w: more than %d bytes of text", format.ErrTooLarge, b.lim.MaxText)
	}
	if sep == 1 {
		b.sb.WriteByte('\n')
	}
	start := b.sb.Len()
	b.sb.WriteString(text)
	return start, nil
}

// Text returns the finished text with sections' ends set.
func (b *Builder) Text() *format.Text {
	text := b.sb.String()
	secs := b.sections
	for i := range secs {
		secs[i].End = len(text)
		if secs[i].Start > len(text) {
			secs[i].Start = len(text)
		}
		for j := i + 1; j < len(secs); j++ {
			if secs[j].Level <= secs[i].Level {
				secs[i].End = secs[j].Start
				break
			}
		}
	}
	return &format.Text{Text: text, Format: "markdown", Parts: b.parts, Sections: secs, Metadata: map[string]any{}}
}

// Heading returns a Markdown heading line of level (1..6; deeper levels are
// written at 6, the deepest Markdown has).
func Heading(level int, title string) string {
	level = max(1, min(level, 6))
	return strings.Repeat("#", level) + " " + title
}

// Table renders rows as a Markdown table; the first row is the header. A
// row shorter than the widest is padded; pipes and newlines in cells are
// escaped so that a cell stays one cell.
func Table(rows [][]string) string {
	if len(rows) == 0 {
		return ""
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	if width == 0 {
		return ""
	}
	var sb strings.Builder
	row := func(r []string) {
		sb.WriteByte('|')
		for i := 0; i < width; i++ {
			c := ""
			if i < len(r) {
				c = Cell(r[i])
			}
			sb.WriteByte(' ')
			sb.WriteString(c)
			sb.WriteString(" |")
		}
		sb.WriteByte('\n')
	}
	row(rows[0])
	sb.WriteByte('|')
	for i := 0; i < width; i++ {
		sb.WriteString(" --- |")
	}
	sb.WriteByte('\n')
	for _, r := range rows[1:] {
		row(r)
	}
	return sb.String()
}

// Cell escapes a table cell's text: a pipe would end the cell and a newline
// the row.
func Cell(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "|\n\r") {
		return s
	}
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r\n", "<br>")
	s = strings.ReplaceAll(s, "\n", "<br>")
	return strings.ReplaceAll(s, "\r", "<br>")
}

// Space collapses runs of spaces and tabs (not newlines) and trims the ends:
// office XML keeps runs and tabs that Markdown does not need.
func Space(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	sp := false
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\u00a0' {
			sp = true
			continue
		}
		if r == '\n' {
			sp = false
			// drop spaces before a newline
			sb.WriteRune(r)
			continue
		}
		if sp && sb.Len() > 0 && !strings.HasSuffix(sb.String(), "\n") {
			sb.WriteByte(' ')
		}
		sp = false
		sb.WriteRune(r)
	}
	return sb.String()
}
