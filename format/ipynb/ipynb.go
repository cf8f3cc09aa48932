// Package ipynb is the Jupyter notebook format (nbformat 4): each cell is a
// part ("cell=N", N counting every cell from 1), rendered as Markdown — a
// Markdown cell as itself, a code cell as a fenced block in the notebook's
// language followed by its outputs, each marked as output; an image or
// other binary output is summarised ("[image/png output, 12 KB]"), never
// dumped. A cell whose source has a heading starts a section titled by its
// first heading, so --section selects cells by their heading.
package ipynb

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/retrieve-dev/retrieve/extract"
	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/text"
)

// Version is the version of the extractor, recorded in provenance.
const Version = "1"

// Assumption says how a notebook became text.
const Assumption = "The notebook's cells were rendered as Markdown: code cells in fenced blocks, each output after its cell marked \"Output\", image and other binary outputs summarised by type and size"

// Format is the Jupyter notebook.
type Format struct{}

var _ format.Extractor = Format{}

// New returns the notebook format.
func New() Format { return Format{} }

// Info describes the format.
func (Format) Info() format.Info {
	return format.Info{
		Name: "ipynb", Extractor: "retrieve/format/ipynb", Version: Version,
		MediaTypes: []string{"application/x-ipynb+json"},
		Extensions: []string{".ipynb"},
	}
}

// lines is a notebook string: one string or a list of lines.
type lines string

func (l *lines) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*l = lines(s)
		return nil
	}
	var ss []string
	if err := json.Unmarshal(b, &ss); err != nil {
		return err
	}
	*l = lines(strings.Join(ss, ""))
	return nil
}

type notebook struct {
	NBFormat *int   `json:"nbformat"`
	Cells    []cell `json:"cells"`
	Metadata struct {
		Kernelspec struct {
			Language string `json:"language"`
		} `json:"kernelspec"`
		LanguageInfo struct {
			Name string `json:"name"`
		} `json:"language_info"`
	} `json:"metadata"`
}

type cell struct {
	Type    string   `json:"cell_type"`
	Source  lines    `json:"source"`
	Outputs []output `json:"outputs"`
}

type output struct {
	Type   string                     `json:"output_type"`
	Name   string                     `json:"name"`
	Text   lines                      `json:"text"`
	Data   map[string]json.RawMessage `json:"data"`
	EName  string                     `json:"ename"`
	EValue string                     `json:"evalue"`
}

// Extract renders the notebook's cells.
func (Format) Extract(ctx context.Context, r io.ReaderAt, size int64, opts format.Options) (*format.Text, error) {
	src, err := format.ReadAll(ctx, r, size, opts.Limits)
	if err != nil {
		return nil, err
	}
	b, _, err := text.Decode(src)
	if err != nil {
		return nil, fmt.Errorf("ipynb: %w", err)
	}
	var nb notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		return nil, fmt.Errorf("%w: the notebook is not JSON: %v", format.ErrMalformed, err)
	}
	if nb.NBFormat == nil || nb.Cells == nil {
		return nil, fmt.Errorf("%w: no nbformat or cells: not a notebook", format.ErrMalformed)
	}
	if *nb.NBFormat < 4 {
		return nil, fmt.Errorf("%w: nbformat %d (only 4 and later are read)", format.ErrUnsupported, *nb.NBFormat)
	}
	lim := opts.Limits.WithDefaults()
	if len(nb.Cells) > lim.MaxParts {
		return nil, fmt.Errorf("%w: %d cells, over the %d-part limit", format.ErrTooLarge, len(nb.Cells), lim.MaxParts)
	}
	lang := nb.Metadata.LanguageInfo.Name
	if lang == "" {
		lang = nb.Metadata.Kernelspec.Language
	}
	var w strings.Builder
	t := &format.Text{Format: "markdown", Assumptions: []string{Assumption},
		Metadata: map[string]any{"cells": len(nb.Cells), "nbformat": *nb.NBFormat}}
	if lang != "" {
		t.Metadata["language"] = lang
	}
	var heads []format.Section
	for i, c := range nb.Cells {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		start := w.Len()
		renderCell(&w, c, lang)
		if int64(w.Len()) > lim.MaxText {
			return nil, fmt.Errorf("%w: the text is over the %d-byte text limit", format.ErrTooLarge, lim.MaxText)
		}
		n := i + 1
		t.Parts = append(t.Parts, format.Part{Kind: "cell", Index: n, Label: c.Type + " " + strconv.Itoa(n), Fragment: "cell=" + strconv.Itoa(n), Start: start, End: w.Len()})
		if c.Type == "markdown" {
			if hs := extract.Headings([]byte(c.Source)); len(hs) > 0 && hs[0].Title != "" {
				heads = append(heads, format.Section{Title: hs[0].Title, Level: hs[0].Level, Start: start})
			}
		}
	}
	t.Text = w.String()
	for i := range heads {
		heads[i].End = len(t.Text)
		for j := i + 1; j < len(heads); j++ {
			if heads[j].Level <= heads[i].Level {
				heads[i].End = heads[j].Start
				break
			}
		}
	}
	t.Sections = heads
	return format.SelectParts(t, opts.Parts)
}

// renderCell writes one cell, ending with a blank line.
func renderCell(w *strings.Builder, c cell, lang string) {
	src := strings.TrimRight(string(c.Source), "\n")
	switch c.Type {
	case "code":
		fence(w, lang, src)
		for _, o := range c.Outputs {
			renderOutput(w, o)
		}
	default: // markdown, raw
		if src != "" {
			w.WriteString(src)
			w.WriteString("\n")
		}
	}
	w.WriteString("\n")
}

func renderOutput(w *strings.Builder, o output) {
	switch o.Type {
	case "stream":
		name := o.Name
		if name == "" {
			name = "stdout"
		}
		fmt.Fprintf(w, "\nOutput (%s):\n", name)
		fence(w, "text", strings.TrimRight(string(o.Text), "\n"))
	case "error":
		fmt.Fprintf(w, "\nOutput (error): %s: %s\n", o.EName, o.EValue)
	default: // execute_result, display_data
		var plain lines
		if raw, ok := o.Data["text/plain"]; ok && json.Unmarshal(raw, &plain) == nil {
			w.WriteString("\nOutput:\n")
			fence(w, "text", strings.TrimRight(string(plain), "\n"))
		}
		types := make([]string, 0, len(o.Data))
		for mt := range o.Data {
			if mt != "text/plain" {
				types = append(types, mt)
			}
		}
		sort.Strings(types)
		for _, mt := range types {
			fmt.Fprintf(w, "\n[%s output, %s]\n", mt, size(mt, o.Data[mt]))
		}
	}
}

// size is the size of an output's data: decoded bytes for base64 (images),
// characters otherwise.
func size(mt string, raw json.RawMessage) string {
	var v lines
	_ = json.Unmarshal(raw, &v)
	n := len(v)
	if strings.HasPrefix(mt, "image/") && mt != "image/svg+xml" {
		n = len(strings.Join(strings.Fields(string(v)), "")) * 3 / 4
	}
	if n < 1024 {
		return strconv.Itoa(n) + " bytes"
	}
	return strconv.Itoa((n+512)/1024) + " KB"
}

// fence writes body as a fenced code block, its fence longer than any run
// of backticks inside.
func fence(w *strings.Builder, lang, body string) {
	f := "```"
	for strings.Contains(body, f) {
		f += "`"
	}
	w.WriteString(f + lang + "\n")
	if body != "" {
		w.WriteString(body + "\n")
	}
	w.WriteString(f + "\n")
}
