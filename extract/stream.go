package extract

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/itchyny/gojq"
)

// SelectPath returns the path of a jq expression that only walks into the
// data by non-negative array indexes and object keys (.[1000], .a.b,
// .["k"][2].name), and false for any other expression. Such a path can
// be evaluated by SelectStream while the document is read, without
// parsing it whole.
func SelectPath(expr string) ([]any, bool) {
	q, err := gojq.Parse(expr)
	if err != nil || q.Term == nil || q.Left != nil || q.Right != nil || len(q.FuncDefs) > 0 || len(q.Imports) > 0 || q.Meta != nil || len(q.Patterns) > 0 {
		return nil, false
	}
	t := q.Term
	var path []any
	switch t.Type {
	case gojq.TermTypeIdentity:
	case gojq.TermTypeIndex:
		step, ok := pathStep(t.Index)
		if !ok {
			return nil, false
		}
		path = append(path, step)
	default:
		return nil, false
	}
	for _, s := range t.SuffixList {
		if s.Index == nil || s.Iter || s.Optional {
			return nil, false
		}
		step, ok := pathStep(s.Index)
		if !ok {
			return nil, false
		}
		path = append(path, step)
	}
	return path, len(path) > 0
}

// pathStep is one index of a path: a key (string) or a non-negative
// array index (int).
func pathStep(ix *gojq.Index) (any, bool) {
	switch {
	case ix == nil || ix.IsSlice || ix.End != nil:
		return nil, false
	case ix.Name != "":
		return ix.Name, true
	case ix.Str != nil:
		if len(ix.Str.Queries) > 0 {
			return nil, false
		}
		return ix.Str.Str, true
	case ix.Start != nil:
		st := ix.Start
		if st.Term == nil || st.Left != nil || st.Right != nil || len(st.Term.SuffixList) > 0 {
			return nil, false
		}
		switch st.Term.Type {
		case gojq.TermTypeNumber:
			n, err := strconv.Atoi(st.Term.Number)
			if err != nil || n < 0 {
				return nil, false
			}
			return n, true
		case gojq.TermTypeString:
			if st.Term.Str == nil || len(st.Term.Str.Queries) > 0 {
				return nil, false
			}
			return st.Term.Str.Str, true
		}
	}
	return nil, false
}

// SelectStream evaluates a path of SelectPath over a JSON, JSON Lines or
// CSV document read from r, as Select would over Parse's value: it reads
// only as far as the selected value and holds only that value (and what
// one skipped value or record needs), so that a selection from a large
// document costs neither its parse nor its memory. Reading stops at the
// selected value: what follows it is not checked. A step that does not
// apply (a key on an array) is ErrSelect with jq's message; a document
// that is not valid as far as it is read is ErrParse.
func SelectStream(r io.Reader, format string, path []any, expr string) (any, error) {
	var v any
	var err error
	switch format {
	case "json":
		dec := json.NewDecoder(r)
		dec.UseNumber()
		v, err = streamJSON(dec, path, false)
	case "jsonl":
		v, err = streamJSONL(r, path)
	case "csv":
		v, err = streamCSV(r, path)
	default:
		return nil, fmt.Errorf("%w: %s cannot be streamed", ErrNotStructured, format)
	}
	var se *selectStepError
	if errors.As(err, &se) {
		return nil, fmt.Errorf("%w: jq %q: %s", ErrSelect, expr, se.msg)
	}
	return v, err
}

type selectStepError struct{ msg string }

func (e *selectStepError) Error() string { return e.msg }

// cannotIndex is jq's error for a step that does not apply to a value.
func cannotIndex(kind string, step any) error {
	if s, ok := step.(string); ok {
		return &selectStepError{fmt.Sprintf("cannot index %s with %q", kind, s)}
	}
	return &selectStepError{fmt.Sprintf("cannot index %s with number", kind)}
}

// streamJSON walks dec's next value along path and returns the value it
// reaches (nil where a step finds nothing, as jq's null). With consume,
// it reads the whole value; otherwise it stops at the selected one.
func streamJSON(dec *json.Decoder, path []any, consume bool) (any, error) {
	if len(path) == 0 {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%w: JSON: %v", ErrParse, err)
		}
		return Parse(raw, "json")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%w: JSON: %v", ErrParse, err)
	}
	switch t := tok.(type) {
	case nil:
		return walkValue(nil, path)
	case json.Delim:
		if t == '[' {
			n, ok := path[0].(int)
			if !ok {
				return nil, cannotIndex("array", path[0])
			}
			var v any
			found := false
			for i := 0; dec.More(); i++ {
				if i == n {
					if v, err = streamJSON(dec, path[1:], consume); err != nil || !consume {
						return v, err
					}
					found = true
					continue
				}
				if err := skipJSON(dec); err != nil {
					return nil, err
				}
			}
			if consume {
				if _, err := dec.Token(); err != nil {
					return nil, fmt.Errorf("%w: JSON: %v", ErrParse, err)
				}
			}
			if !found {
				return walkValue(nil, path[1:])
			}
			return v, nil
		}
		key, ok := path[0].(string)
		if !ok {
			return nil, cannotIndex("object", path[0])
		}
		// The whole object is read: of a key given twice, the last value
		// counts, as when the object is parsed.
		found := false
		var v any
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, fmt.Errorf("%w: JSON: %v", ErrParse, err)
			}
			if k, _ := kt.(string); k == key {
				if v, err = streamJSON(dec, path[1:], true); err != nil {
					return nil, err
				}
				found = true
				continue
			}
			if err := skipJSON(dec); err != nil {
				return nil, err
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("%w: JSON: %v", ErrParse, err)
		}
		if !found {
			return walkValue(nil, path[1:])
		}
		return v, nil
	default: // a string, a number or a boolean
		return walkScalar(t, path)
	}
}

// skipJSON reads past dec's next value.
func skipJSON(dec *json.Decoder) error {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return fmt.Errorf("%w: JSON: %v", ErrParse, err)
	}
	return nil
}

// walkValue walks a value already in memory along path, as jq does.
func walkValue(v any, path []any) (any, error) {
	for i, step := range path {
		switch x := v.(type) {
		case nil:
		case []any:
			n, ok := step.(int)
			if !ok {
				return nil, cannotIndex("array", step)
			}
			if n >= len(x) {
				v = nil
			} else {
				v = x[n]
			}
		case map[string]any:
			k, ok := step.(string)
			if !ok {
				return nil, cannotIndex("object", step)
			}
			v = x[k]
		default:
			return walkScalar(v, path[i:])
		}
	}
	return v, nil
}

// walkScalar walks a scalar along path with jq itself, whose answer for
// a string or a number indexed is its own (an error, or null).
func walkScalar(v any, path []any) (any, error) {
	var b strings.Builder
	for _, step := range path {
		if n, ok := step.(int); ok {
			fmt.Fprintf(&b, ".[%d]", n)
		} else {
			k, _ := json.Marshal(step)
			fmt.Fprintf(&b, ".[%s]", k)
		}
	}
	q, err := gojq.Parse(b.String())
	if err != nil {
		return nil, &selectStepError{err.Error()}
	}
	iter := q.Run(normalizeScalar(v))
	out, ok := iter.Next()
	if !ok {
		return nil, nil
	}
	if err, isErr := out.(error); isErr {
		return nil, &selectStepError{err.Error()}
	}
	return out, nil
}

// normalizeScalar is a scalar as gojq takes it (json.Number as a number).
func normalizeScalar(v any) any {
	if n, ok := v.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			return int(i)
		}
		f, _ := n.Float64()
		return f
	}
	return v
}

// streamJSONL walks the array of a JSON Lines document's records.
func streamJSONL(r io.Reader, path []any) (any, error) {
	n, ok := path[0].(int)
	if !ok {
		return nil, cannotIndex("array", path[0])
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for i := 0; ; {
		line, err := br.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			if i == n {
				v, perr := Parse(line, "json")
				if perr != nil {
					return nil, fmt.Errorf("%w: JSON Lines record %d: %v", ErrParse, i+1, perr)
				}
				return walkValue(v, path[1:])
			}
			i++
		}
		if err == io.EOF {
			return walkValue(nil, path[1:])
		}
		if err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
	}
}

// streamCSV walks the array of a CSV document's rows, objects keyed by
// the header row as Parse makes them.
func streamCSV(r io.Reader, path []any) (any, error) {
	n, ok := path[0].(int)
	if !ok {
		return nil, cannotIndex("array", path[0])
	}
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err == io.EOF {
		return walkValue(nil, path[1:])
	}
	if err != nil {
		return nil, fmt.Errorf("%w: CSV: %v", ErrParse, err)
	}
	header = append([]string(nil), header...)
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], BOM)
	}
	cr.ReuseRecord = true
	for i := 0; ; i++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return walkValue(nil, path[1:])
		}
		if err != nil {
			return nil, fmt.Errorf("%w: CSV: %v", ErrParse, err)
		}
		if i < n {
			continue
		}
		row := map[string]any{}
		for j, h := range header {
			if j < len(rec) {
				row[h] = rec[j]
			} else {
				row[h] = nil
			}
		}
		return walkValue(row, path[1:])
	}
}
