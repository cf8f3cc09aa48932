// Package jsonl is JSON Lines (also NDJSON): one JSON value per line, each
// record a part ("record=N", N counting records, blank lines skipped). The
// engine streams these documents as text and parses them as the array of
// their records for --select and --format json (extract.Parse "jsonl").
package jsonl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/text"
)

// Version is the version of the extractor, recorded in provenance.
const Version = "1"

// Format is JSON Lines.
type Format struct{}

var _ format.Extractor = Format{}

// New returns the JSON Lines format.
func New() Format { return Format{} }

// Info describes the format.
func (Format) Info() format.Info {
	return format.Info{
		Name: "jsonl", Extractor: "retrieve/format/jsonl", Version: Version,
		MediaTypes: []string{"application/jsonl", "application/x-ndjson", "application/x-jsonlines"},
		Extensions: []string{".jsonl", ".ndjson"},
		Stream:     true,
	}
}

// Extract checks every line is one JSON value and cuts the text into
// records.
func (Format) Extract(ctx context.Context, r io.ReaderAt, size int64, opts format.Options) (*format.Text, error) {
	src, err := format.ReadAll(ctx, r, size, opts.Limits)
	if err != nil {
		return nil, err
	}
	b, enc, err := text.Decode(src)
	if err != nil {
		return nil, fmt.Errorf("jsonl: %w", err)
	}
	lim := opts.Limits.WithDefaults()
	if err := lim.CheckText(len(b)); err != nil {
		return nil, err
	}
	t := &format.Text{Text: string(b), Format: "text", Metadata: map[string]any{}}
	if enc != "" {
		t.Metadata["encoding"] = enc
	}
	line := 0
	for off := 0; off < len(b); {
		if line%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		line++
		end := len(b)
		if i := bytes.IndexByte(b[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		rec := bytes.TrimSpace(b[off:end])
		if len(rec) > 0 {
			if !valid(rec) {
				return nil, fmt.Errorf("%w: line %d is not one JSON value", format.ErrMalformed, line)
			}
			n := len(t.Parts) + 1
			if n > lim.MaxParts {
				return nil, fmt.Errorf("%w: more than %d records", format.ErrTooLarge, lim.MaxParts)
			}
			t.Parts = append(t.Parts, format.Part{Kind: "record", Index: n, Label: "line " + strconv.Itoa(line), Fragment: "record=" + strconv.Itoa(n), Start: off, End: end})
		}
		off = end
	}
	t.Metadata["records"] = len(t.Parts)
	return format.SelectParts(t, opts.Parts)
}

// valid reports whether rec holds exactly one JSON value.
func valid(rec []byte) bool {
	return json.Valid(rec)
}
