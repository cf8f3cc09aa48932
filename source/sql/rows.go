package sql

import (
	dbsql "database/sql"
	"database/sql/driver"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// maxSafeInt is the largest integer a JSON number keeps exactly (2^53).
const maxSafeInt = 1 << 53

// scanRows reads at most maxRows rows into rs, converting every value to a
// JSON type that keeps it exactly.
func scanRows(rows *dbsql.Rows, d *dialect, maxRows int, rs *resultSet) error {
	cts, err := rows.ColumnTypes()
	if err != nil {
		return err
	}
	names := make([]string, len(cts))
	types := make([]string, len(cts))
	for i, ct := range cts {
		names[i], types[i] = ct.Name(), ct.DatabaseTypeName()
	}
	n := rs.setColumns(names, types)
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	rs.rows = []map[string]any{}
	for rows.Next() {
		if rs.skip > 0 {
			rs.skip--
			continue
		}
		if len(rs.rows) == maxRows {
			rs.truncated = true
			break
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if err := rs.addRow(vals); err != nil {
			return err
		}
	}
	return rows.Err()
}

// setColumns names the columns (renaming duplicates) and returns their
// number.
func (rs *resultSet) setColumns(names, types []string) int {
	n := len(names)
	rs.columns = make([]string, n)
	rs.types = make([]string, n)
	seen := map[string]int{}
	for i, name := range names {
		if k := seen[name]; k > 0 {
			renamed := fmt.Sprintf("%s_%d", name, k+1)
			rs.renamed = append(rs.renamed, name+" → "+renamed)
			seen[name] = k + 1
			name = renamed
		} else {
			seen[name] = 1
		}
		rs.columns[i] = name
		rs.types[i] = strings.ToUpper(types[i])
	}
	rs.rows = []map[string]any{}
	return n
}

// errResultTooLarge is returned when the values of a result pass
// MaxResultBytes.
var errResultTooLarge = errors.New("result too large")

// addRow converts one row of scanned values; past MaxResultBytes of
// values in all, it fails with errResultTooLarge.
func (rs *resultSet) addRow(vals []any) error {
	row := make(map[string]any, len(vals))
	for i, v := range vals {
		switch x := v.(type) {
		case string:
			rs.bytes += len(x)
		case []byte:
			rs.bytes += len(x)
		default:
			rs.bytes += 8
		}
		row[rs.columns[i]] = Value(v, rs.types[i])
	}
	if rs.bytes > MaxResultBytes {
		return errResultTooLarge
	}
	rs.rows = append(rs.rows, row)
	return nil
}

// Value converts a scanned database value to a JSON value that keeps it:
// integers beyond 2^53, decimals and non-finite floats as strings, times
// as RFC 3339, bytes of binary columns as base64.
func Value(v any, dbType string) any {
	switch x := v.(type) {
	case nil:
		return nil
	case bool:
		return x
	case int64:
		if dbType == "BOOL" || dbType == "BOOLEAN" {
			return x != 0 // SQLite keeps booleans as 0 and 1
		}
		return intValue(x)
	case int32:
		return int64(x)
	case int16:
		return int64(x)
	case int8:
		return int64(x)
	case int:
		return intValue(int64(x))
	case uint64:
		if x > maxSafeInt {
			return strconv.FormatUint(x, 10)
		}
		return int64(x)
	case uint32:
		return int64(x)
	case float64:
		return floatValue(x)
	case float32:
		return floatValue(float64(x))
	case time.Time:
		if isDateType(dbType) {
			return x.Format(time.DateOnly)
		}
		return x.Format(time.RFC3339Nano)
	case string:
		return textValue(x, dbType)
	case []byte:
		if isBinaryType(dbType) {
			return base64.StdEncoding.EncodeToString(x)
		}
		if !utf8.Valid(x) {
			return base64.StdEncoding.EncodeToString(x)
		}
		return textValue(string(x), dbType)
	case [16]byte: // a UUID (pgx)
		return fmt.Sprintf("%x-%x-%x-%x-%x", x[0:4], x[4:6], x[6:8], x[8:10], x[10:16])
	case map[string]any, []any: // JSON (pgx decodes json and jsonb)
		return x
	case driver.Valuer: // pgtype.Numeric, Interval…: their driver value
		dv, err := x.Value()
		if err != nil {
			return fmt.Sprint(v)
		}
		if _, again := dv.(driver.Valuer); again {
			return fmt.Sprint(dv)
		}
		return Value(dv, dbType)
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}

func intValue(x int64) any {
	if x > maxSafeInt || x < -maxSafeInt {
		return strconv.FormatInt(x, 10)
	}
	return x
}

func floatValue(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return x
}

// textValue turns the text form of a value (MySQL's text protocol) into
// the JSON type of its column.
func textValue(s, dbType string) any {
	switch {
	case isIntType(dbType):
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return intValue(n)
		}
		if n, err := strconv.ParseUint(s, 10, 64); err == nil && n > maxSafeInt {
			return s
		}
	case dbType == "FLOAT" || dbType == "DOUBLE" || dbType == "REAL" || dbType == "FLOAT4" || dbType == "FLOAT8":
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return floatValue(f)
		}
	case dbType == "BOOL" || dbType == "BOOLEAN":
		switch s {
		case "t", "true", "1":
			return true
		case "f", "false", "0":
			return false
		}
	}
	return s
}

func isIntType(t string) bool {
	switch strings.TrimPrefix(t, "UNSIGNED ") {
	case "INT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT", "MEDIUMINT", "INT2", "INT4", "INT8", "YEAR":
		return true
	}
	return false
}

func isDateType(t string) bool { return t == "DATE" }

func isBinaryType(t string) bool {
	return strings.Contains(t, "BLOB") || strings.Contains(t, "BINARY") || t == "BYTEA" || t == "BIT"
}
