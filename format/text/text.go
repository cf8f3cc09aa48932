// Package text holds the formats whose documents are their own text: plain
// text, Markdown, source code and structured data (JSON, YAML, TOML, CSV).
// Each validates that the document is UTF-8 text of its kind, decodes a
// UTF-16 or UTF-32 document with a byte order mark, and gives Markdown its
// outline. The engine streams such documents (Info.Stream) rather than
// extracting them; the extractors serve the registry and other callers.
package text

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve/extract"
	"github.com/retrieve-dev/retrieve/format"
)

// Version is the version of these extractors, recorded in provenance.
const Version = "1"

// Format is one text format: its Info and how a document of it is checked.
type Format struct {
	info format.Info
	// kind is Text.Format: "text" or "markdown".
	kind string
	// parse, when set, names the extract.Parse format the text must parse as.
	parse string
	// json checks the text with encoding/json (no tree is built).
	json bool
}

var _ format.Extractor = (*Format)(nil)

// Plain is plain text (.txt, .text, .log).
func Plain() *Format {
	return &Format{kind: "text", info: info("text", []string{"text/plain"}, ".txt", ".text", ".log")}
}

// Markdown is CommonMark: its headings are the document's sections.
func Markdown() *Format {
	return &Format{kind: "markdown", info: info("markdown", []string{"text/markdown", "text/x-markdown"}, ".md", ".markdown")}
}

// Code is source code in the languages extract.Detect names, by extension;
// the engine gives its symbols to --section.
func Code() *Format {
	return &Format{kind: "text", info: info("code", nil, extract.CodeExtensions()...)}
}

// JSON is one JSON value; it must be well formed.
func JSON() *Format {
	return &Format{kind: "text", json: true, info: info("json", []string{"application/json"}, ".json")}
}

// YAML is a YAML document; it must parse.
func YAML() *Format {
	return &Format{kind: "text", parse: "yaml", info: info("yaml", []string{"application/yaml", "application/x-yaml", "text/yaml"}, ".yaml", ".yml")}
}

// TOML is a TOML document; it must parse.
func TOML() *Format {
	return &Format{kind: "text", parse: "toml", info: info("toml", []string{"application/toml"}, ".toml")}
}

// CSV is comma-separated values (RFC 4180); it must parse.
func CSV() *Format {
	return &Format{kind: "text", parse: "csv", info: info("csv", []string{"text/csv"}, ".csv")}
}

func info(name string, types []string, exts ...string) format.Info {
	return format.Info{Name: name, Extractor: "retrieve/format/text", Version: Version, MediaTypes: types, Extensions: exts, Stream: true}
}

// Info describes the format.
func (f *Format) Info() format.Info { return f.info }

// Extract reads the document whole and returns it as text: without parts
// (a span is cited by lines), with the Markdown outline as sections.
func (f *Format) Extract(ctx context.Context, r io.ReaderAt, size int64, opts format.Options) (*format.Text, error) {
	src, err := format.ReadAll(ctx, r, size, opts.Limits)
	if err != nil {
		return nil, err
	}
	if len(opts.Parts) > 0 {
		return nil, fmt.Errorf("%w: a %s document has no parts; cite it by lines", format.ErrNoPart, f.info.Name)
	}
	b, enc, err := Decode(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.info.Name, err)
	}
	if err := opts.Limits.CheckText(len(b)); err != nil {
		return nil, err
	}
	switch {
	case f.json:
		if !json.Valid(b) {
			return nil, fmt.Errorf("%w: not well-formed JSON", format.ErrMalformed)
		}
	case f.parse != "":
		if _, err := extract.Parse(b, f.parse); err != nil {
			return nil, fmt.Errorf("%w: %v", format.ErrMalformed, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t := &format.Text{Text: string(b), Format: f.kind, Metadata: map[string]any{}}
	if enc != "" {
		t.Metadata["encoding"] = enc
		if enc != extract.UTF8 {
			t.Assumptions = append(t.Assumptions, fmt.Sprintf("The bytes are %s (byte order mark) and were decoded to UTF-8", enc))
		}
	}
	if f.kind == "markdown" {
		t.Sections = MarkdownSections(b)
	}
	return t, nil
}

// Decode returns a text document's bytes as UTF-8: a UTF-16 or UTF-32
// document with a byte order mark is decoded, a UTF-8 mark removed, and the
// encoding named ("" without a mark). Bytes that are not text (a NUL byte,
// invalid UTF-8) are ErrUnsupported: text is never repaired here.
func Decode(src []byte) (b []byte, enc string, err error) {
	enc, n := extract.UnicodeBOM(src)
	b = src[n:]
	if enc != "" && enc != extract.UTF8 {
		if b, err = io.ReadAll(extract.DecodeUnicode(bytes.NewReader(b), enc)); err != nil {
			return nil, "", fmt.Errorf("%w: %s: %v", format.ErrMalformed, enc, err)
		}
	}
	if bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
		return nil, "", fmt.Errorf("%w: the bytes are not UTF-8 text", format.ErrUnsupported)
	}
	return b, enc, nil
}

// MarkdownSections is the outline of Markdown text: one section per
// heading, from the heading to the next of the same or a higher level.
func MarkdownSections(md []byte) []format.Section {
	var out []format.Section
	for _, h := range extract.Headings(md) {
		if h.Title == "" {
			continue
		}
		out = append(out, format.Section{Title: h.Title, Level: h.Level, Start: h.Start, End: h.End})
	}
	return out
}
