package extract

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/itchyny/gojq"
	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"
)

// IsStructured reports whether format can be parsed and projected with jq.
func IsStructured(format string) bool {
	switch format {
	case "json", "yaml", "toml", "csv", "jsonl":
		return true
	}
	return false
}

// Parse parses data of a structured format ("json", "yaml", "toml" or
// "csv") into JSON-compatible values that jq and canonical JSON accept:
// map[string]any, []any, string, int, float64, bool and nil. Integers keep
// their precision (int when they fit, float64 otherwise), time values
// become RFC 3339 strings, non-string YAML keys become strings, and CSV
// becomes an array of objects keyed by the header row, with string values
// (nil where a row is shorter than the header); JSON Lines ("jsonl") becomes
// the array of its records, blank lines skipped. A leading BOM is ignored.
// Malformed input gives an error wrapping ErrParse, with the line when the
// parser reports one; another format gives ErrNotStructured.
func Parse(data []byte, format string) (any, error) {
	data = bytes.TrimPrefix(data, []byte(BOM))
	switch format {
	case "json":
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			if err == io.EOF {
				return nil, fmt.Errorf("%w: JSON: the document is empty", ErrParse)
			}
			return nil, fmt.Errorf("%w: JSON%s: %v", ErrParse, jsonPosition(data, err), err)
		}
		if _, err := dec.Token(); err != io.EOF {
			off := dec.InputOffset()
			return nil, fmt.Errorf("%w: JSON%s: unexpected data after the first value", ErrParse, position(data, off))
		}
		return normalize(v), nil
	case "yaml":
		dec := yaml.NewDecoder(bytes.NewReader(data))
		var v any
		if err := dec.Decode(&v); err != nil && err != io.EOF {
			return nil, fmt.Errorf("%w: YAML: %v", ErrParse, err)
		}
		var extra any
		switch err := dec.Decode(&extra); {
		case err == io.EOF:
		case err != nil:
			return nil, fmt.Errorf("%w: YAML: %v", ErrParse, err)
		default:
			return nil, fmt.Errorf("%w: YAML: the file holds several documents (separated by ---); select one with a line range", ErrParse)
		}
		return normalize(v), nil
	case "toml":
		var v map[string]any
		if err := toml.Unmarshal(data, &v); err != nil {
			var de *toml.DecodeError
			if errors.As(err, &de) {
				row, col := de.Position()
				return nil, fmt.Errorf("%w: TOML line %d column %d: %v", ErrParse, row, col, de)
			}
			return nil, fmt.Errorf("%w: TOML: %v", ErrParse, err)
		}
		return normalize(v), nil
	case "jsonl":
		return parseJSONLines(data)
	case "csv":
		r := csv.NewReader(bytes.NewReader(data))
		r.FieldsPerRecord = -1
		recs, err := r.ReadAll()
		if err != nil {
			return nil, fmt.Errorf("%w: CSV: %v", ErrParse, err)
		}
		out := []any{}
		if len(recs) == 0 {
			return out, nil
		}
		header := recs[0]
		if len(header) > 0 {
			header[0] = strings.TrimPrefix(header[0], BOM)
		}
		for _, rec := range recs[1:] {
			row := map[string]any{}
			for i, h := range header {
				if i < len(rec) {
					row[h] = rec[i]
				} else {
					row[h] = nil
				}
			}
			out = append(out, row)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: %s is not a structured format", ErrNotStructured, format)
}

// parseJSONLines parses one JSON value per line into an array.
func parseJSONLines(data []byte) (any, error) {
	out := []any{}
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%w: JSON Lines line %d: %v", ErrParse, n, err)
		}
		if _, err := dec.Token(); err != io.EOF {
			return nil, fmt.Errorf("%w: JSON Lines line %d: more than one value on the line", ErrParse, n)
		}
		out = append(out, normalize(v))
	}
	return out, nil
}

// jsonPosition locates a JSON syntax error as " line L column C".
func jsonPosition(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Offset counts the bytes read, the offending one included.
		return position(data, se.Offset-1)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return position(data, te.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return position(data, int64(len(data)))
	}
	return ""
}

// position formats a byte offset of data as " line L column C" (1-based;
// the column counts bytes).
func position(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf(" line %d column %d", line, col)
}

// keyString turns a YAML map key into a JSON object key.
func keyString(k any) string {
	switch x := k.(type) {
	case string:
		return x
	case nil:
		return "null"
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case map[string]any, map[any]any, []any:
		if b, err := json.Marshal(normalize(x)); err == nil {
			return string(b)
		}
	}
	return fmt.Sprint(k)
}

// normalize converts decoded values to the types jq and JSON accept.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[keyString(k)] = normalize(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
		return x
	case json.Number:
		if i, err := x.Int64(); err == nil && i >= math.MinInt && i <= math.MaxInt {
			return int(i)
		}
		f, err := x.Float64()
		if err != nil {
			return x.String()
		}
		return f
	case int64:
		return int(x)
	case uint64:
		if x <= math.MaxInt {
			return int(x)
		}
		return float64(x)
	case float32:
		return float64(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case toml.LocalDate, toml.LocalTime, toml.LocalDateTime:
		return fmt.Sprint(x)
	case []byte:
		return string(x)
	}
	return v
}

// SelectTimeout is how long Select lets a jq expression run when ctx has
// no earlier deadline.
const SelectTimeout = 5 * time.Second

// maxOutputs bounds the number of values a jq expression may produce.
const maxOutputs = 1_000_000

// Select runs the jq expression expr over v (a value of Parse) with gojq.
// No output gives nil, one output that value, several outputs a []any of
// them. A syntax or compile error or a runtime error gives an error
// wrapping ErrSelect; a run that exceeds ctx or SelectTimeout ErrTimeout;
// more than a million outputs ErrTooLarge. With a sandbox (SetJQSandbox)
// the expression runs in a child process bounded in memory, and a run past
// its budget gives ErrJQMemory; without one it runs in-process, bounded in
// time and output count only. The expression sees no environment
// variables and cannot read files.
func Select(ctx context.Context, v any, expr string) (any, error) {
	// Syntax errors are found here, without starting a child.
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("%w: jq %q: %v", ErrSelect, expr, err)
	}
	if _, err := gojq.Compile(q); err != nil {
		return nil, fmt.Errorf("%w: jq %q: %v", ErrSelect, expr, err)
	}
	if s := jqSandbox.Load(); s != nil {
		// The sandbox starts the time limit when the child starts, not
		// while the call waits for a slot (issue #32).
		return s.run(ctx, v, expr)
	}
	ctx, cancel := context.WithTimeout(ctx, SelectTimeout)
	defer cancel()
	outs, err := evalJQ(ctx, v, expr)
	if err != nil {
		return nil, err
	}
	return collect(outs), nil
}

// evalJQ runs expr over v in this process and returns its outputs.
func evalJQ(ctx context.Context, v any, expr string) ([]any, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("%w: jq %q: %v", ErrSelect, expr, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, fmt.Errorf("%w: jq %q: %v", ErrSelect, expr, err)
	}
	var outs []any
	iter := code.RunWithContext(ctx, v)
	for {
		o, ok := iter.Next()
		if !ok {
			break
		}
		if err, isErr := o.(error); isErr {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				break
			}
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
				return nil, fmt.Errorf("%w: jq %q did not finish in time (%v)", ErrTimeout, expr, err)
			}
			return nil, fmt.Errorf("%w: jq %q: %v", ErrSelect, expr, err)
		}
		outs = append(outs, o)
		if len(outs) > maxOutputs {
			return nil, fmt.Errorf("%w: jq %q produced more than a million values", ErrTooLarge, expr)
		}
	}
	return outs, nil
}

// collect turns jq outputs into Select's value: nil, the one output, or
// a []any of several.
func collect(outs []any) any {
	switch len(outs) {
	case 0:
		return nil
	case 1:
		return outs[0]
	default:
		return outs
	}
}
