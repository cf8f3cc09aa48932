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
	case "json", "yaml", "toml", "csv":
		return true
	}
	return false
}

// Parse parses data of a structured format into JSON-compatible values
// (map[string]any, []any, string, float64, int, bool, nil) that jq and
// canonical JSON accept: YAML timestamps become RFC 3339 strings, non-string
// keys become strings, integers keep their precision. CSV becomes an array
// of objects keyed by the header row.
func Parse(data []byte, format string) (any, error) {
	switch format {
	case "json":
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%w: JSON: %v", ErrParse, err)
		}
		if _, err := dec.Token(); err != io.EOF {
			return nil, fmt.Errorf("%w: JSON: unexpected data after the first value", ErrParse)
		}
		return normalize(v), nil
	case "yaml":
		dec := yaml.NewDecoder(bytes.NewReader(data))
		var v any
		if err := dec.Decode(&v); err != nil && err != io.EOF {
			return nil, fmt.Errorf("%w: YAML: %v", ErrParse, err)
		}
		var extra any
		if err := dec.Decode(&extra); err == nil {
			return nil, fmt.Errorf("%w: YAML: several documents; select one with --lines", ErrParse)
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
			m[fmt.Sprint(k)] = normalize(e)
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

// Select runs a jq expression over v. No output gives nil, one output that
// value, several outputs an array of them.
func Select(ctx context.Context, v any, expr string) (any, error) {
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
			return nil, fmt.Errorf("%w: jq %q: %v", ErrSelect, expr, err)
		}
		outs = append(outs, o)
		if len(outs) > 1_000_000 {
			return nil, fmt.Errorf("%w: jq %q produced more than a million values", ErrTooLarge, expr)
		}
	}
	switch len(outs) {
	case 0:
		return nil, nil
	case 1:
		return outs[0], nil
	default:
		return outs, nil
	}
}
