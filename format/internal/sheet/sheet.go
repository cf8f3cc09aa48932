// Package sheet is the spreadsheet model XLSX and ODS share: cells by row
// and column, A1 references and ranges, sheet names quoted the way Excel
// quotes them, and a sheet or a range rendered as a Markdown table whose
// header row holds the column letters and whose first column holds the row
// numbers, so every cell in the text can be named.
package sheet

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/internal/mdtext"
)

// MaxRow and MaxCol are Excel's grid (1,048,576 rows, XFD columns): a
// reference past them is not a cell.
const (
	MaxRow = 1 << 20
	MaxCol = 16384
)

// Cell is one non-empty cell.
type Cell struct {
	Row, Col int // 1-based
	Value    string
}

// Sheet is a named sheet's non-empty cells.
type Sheet struct {
	Name  string
	Cells []Cell
	// Bytes is the size of the values plus 16 per cell, held to the text
	// limit while reading.
	Bytes int64
}

// Add appends a cell; empty values are not kept.
func (s *Sheet) Add(row, col int, v string) {
	if v == "" {
		return
	}
	s.Cells = append(s.Cells, Cell{Row: row, Col: col, Value: v})
	// A cell costs more than its value: 16 bytes stand for its place in
	// memory and in the table, so that a repeated ODS row of one-byte
	// values cannot hold millions of cells under the text limit.
	s.Bytes += int64(len(v)) + 16
}

// Range is an inclusive block of cells; a zero From/To row or column means
// the whole extent (A:C is rows 0..0, 2:5 is columns 0..0).
type Range struct {
	Col0, Row0, Col1, Row1 int
}

// Used returns the smallest range holding every cell, and false for an
// empty sheet.
func (s *Sheet) Used() (Range, bool) {
	if len(s.Cells) == 0 {
		return Range{}, false
	}
	r := Range{Col0: MaxCol + 1, Row0: MaxRow + 1}
	for _, c := range s.Cells {
		r.Col0, r.Row0 = min(r.Col0, c.Col), min(r.Row0, c.Row)
		r.Col1, r.Row1 = max(r.Col1, c.Col), max(r.Row1, c.Row)
	}
	return r, true
}

// Clip returns the part of r inside the sheet's used range (an open side
// takes the used range's), and false when they do not meet.
func (s *Sheet) Clip(r Range) (Range, bool) {
	u, ok := s.Used()
	if !ok {
		return Range{}, false
	}
	if r.Col0 == 0 {
		r.Col0, r.Col1 = u.Col0, u.Col1
	}
	if r.Row0 == 0 {
		r.Row0, r.Row1 = u.Row0, u.Row1
	}
	r.Col0, r.Row0 = max(r.Col0, u.Col0), max(r.Row0, u.Row0)
	r.Col1, r.Row1 = min(r.Col1, u.Col1), min(r.Row1, u.Row1)
	return r, r.Col0 <= r.Col1 && r.Row0 <= r.Row1
}

// Table renders the cells of r as a Markdown table: a header of column
// letters, one line per row that holds a value (empty rows are left out;
// the row numbers show where), the row number first.
func (s *Sheet) Table(r Range) string {
	cells := make([]Cell, 0, len(s.Cells))
	for _, c := range s.Cells {
		if c.Row >= r.Row0 && c.Row <= r.Row1 && c.Col >= r.Col0 && c.Col <= r.Col1 {
			cells = append(cells, c)
		}
	}
	sort.SliceStable(cells, func(i, j int) bool {
		if cells[i].Row != cells[j].Row {
			return cells[i].Row < cells[j].Row
		}
		return cells[i].Col < cells[j].Col
	})
	width := r.Col1 - r.Col0 + 1
	head := make([]string, 0, width+1)
	head = append(head, "")
	for c := r.Col0; c <= r.Col1; c++ {
		head = append(head, ColName(c))
	}
	rows := [][]string{head}
	for i := 0; i < len(cells); {
		row := make([]string, width+1)
		row[0] = strconv.Itoa(cells[i].Row)
		n := cells[i].Row
		for ; i < len(cells) && cells[i].Row == n; i++ {
			// A later duplicate of a cell wins, as it does in Excel.
			row[cells[i].Col-r.Col0+1] = cells[i].Value
		}
		rows = append(rows, row)
	}
	return mdtext.Table(rows)
}

// TableSize is about how many bytes Table(r) writes, counted before it is
// written: a sparse sheet with a value in A1 and one in XFD1048576 holds two
// cells but would render 16,384 columns on each row that has a value.
func (s *Sheet) TableSize(r Range) int64 {
	rows := map[int]bool{}
	var values int64
	for _, c := range s.Cells {
		if c.Row >= r.Row0 && c.Row <= r.Row1 && c.Col >= r.Col0 && c.Col <= r.Col1 {
			rows[c.Row] = true
			values += int64(len(c.Value))
		}
	}
	width := int64(r.Col1-r.Col0+2) * 6 // " A |" and "--- |" with room for wide letters
	return int64(len(rows)+2)*width + values
}

// checkSize refuses a table over the text limit before it is built.
func (s *Sheet) checkSize(r Range, lim format.Limits) error {
	if n, max := s.TableSize(r), lim.WithDefaults().MaxText; n > max {
		return fmt.Errorf("%w: sheet %s renders about %d bytes, the limit is %d", format.ErrTooLarge, QuoteName(s.Name), n, max)
	}
	return nil
}

// ColName is a 1-based column's letters: 1 → A, 27 → AA.
func ColName(c int) string {
	var b []byte
	for c > 0 {
		c--
		b = append([]byte{byte('A' + c%26)}, b...)
		c /= 26
	}
	return string(b)
}

// String writes r in A1 notation: B2:C40, A:C, 2:5, or B2 for one cell.
func (r Range) String() string {
	switch {
	case r.Row0 == 0:
		return ColName(r.Col0) + ":" + ColName(r.Col1)
	case r.Col0 == 0:
		return strconv.Itoa(r.Row0) + ":" + strconv.Itoa(r.Row1)
	case r.Col0 == r.Col1 && r.Row0 == r.Row1:
		return ColName(r.Col0) + strconv.Itoa(r.Row0)
	}
	return ColName(r.Col0) + strconv.Itoa(r.Row0) + ":" + ColName(r.Col1) + strconv.Itoa(r.Row1)
}

// ParseCell reads a cell reference such as B12 or $B$12 (no sheet).
func ParseCell(s string) (col, row int, ok bool) {
	col, rest, ok := parseCol(s)
	if !ok {
		return 0, 0, false
	}
	row, rest, ok = parseRow(rest)
	return col, row, ok && rest == ""
}

func parseCol(s string) (int, string, bool) {
	s = strings.TrimPrefix(s, "$")
	c, i := 0, 0
	for ; i < len(s) && i < 4; i++ {
		ch := s[i] &^ 0x20 // upper case
		if ch < 'A' || ch > 'Z' {
			break
		}
		c = c*26 + int(ch-'A'+1)
	}
	if i == 0 || c > MaxCol {
		return 0, s, false
	}
	return c, s[i:], true
}

func parseRow(s string) (int, string, bool) {
	s = strings.TrimPrefix(s, "$")
	r, i := 0, 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		r = r*10 + int(s[i]-'0')
		if r > MaxRow {
			return 0, s, false
		}
	}
	if i == 0 || r == 0 {
		return 0, s, false
	}
	return r, s[i:], true
}

// ParseRange reads B2:C40, B2, A:C, 2:5 (and $-absolute forms).
func ParseRange(s string) (Range, bool) {
	a, b, two := strings.Cut(s, ":")
	if !two {
		c, r, ok := ParseCell(a)
		return Range{Col0: c, Row0: r, Col1: c, Row1: r}, ok
	}
	if c0, r0, ok := ParseCell(a); ok {
		c1, r1, ok := ParseCell(b)
		if !ok {
			return Range{}, false
		}
		return Range{Col0: min(c0, c1), Row0: min(r0, r1), Col1: max(c0, c1), Row1: max(r0, r1)}, true
	}
	if c0, rest, ok := parseCol(a); ok && rest == "" {
		c1, rest, ok := parseCol(b)
		if !ok || rest != "" {
			return Range{}, false
		}
		return Range{Col0: min(c0, c1), Col1: max(c0, c1)}, true
	}
	if r0, rest, ok := parseRow(a); ok && rest == "" {
		r1, rest, ok := parseRow(b)
		if !ok || rest != "" {
			return Range{}, false
		}
		return Range{Row0: min(r0, r1), Row1: max(r0, r1)}, true
	}
	return Range{}, false
}

// QuoteName writes a sheet name as a reference needs it: bare when it is a
// plain word (letters, digits, underscores, dots, not starting with a digit,
// not itself a cell reference), otherwise in single quotes with quotes
// doubled — 'My Sheet', 'It”s'.
func QuoteName(name string) string {
	plain := name != ""
	for i, r := range name {
		if !(unicode.IsLetter(r) || r == '_' || (i > 0 && (unicode.IsDigit(r) || r == '.'))) {
			plain = false
			break
		}
	}
	if plain {
		if _, _, ok := ParseCell(name); ok {
			plain = false
		} else if isR1C1(name) {
			plain = false
		}
	}
	if plain {
		return name
	}
	return "'" + strings.ReplaceAll(name, "'", "''") + "'"
}

func isR1C1(s string) bool {
	u := strings.ToUpper(s)
	if u == "R" || u == "C" {
		return true
	}
	if !strings.HasPrefix(u, "R") && !strings.HasPrefix(u, "C") {
		return false
	}
	for _, r := range u[1:] {
		if !(r >= '0' && r <= '9') && r != 'C' && r != 'R' {
			return false
		}
	}
	return true
}

// ParseRef splits Sheet1!B2:C40, 'My Sheet'!A:C or a bare sheet name
// ('My Sheet' or Sheet1) into the sheet's name and range; whole is true
// when no range was given.
func ParseRef(expr string) (name string, r Range, whole bool, err error) {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return "", Range{}, false, fmt.Errorf("%w: an empty range", format.ErrNoPart)
	}
	rest := ""
	if strings.HasPrefix(expr, "'") {
		var sb strings.Builder
		i := 1
		for ; i < len(expr); i++ {
			if expr[i] == '\'' {
				if i+1 < len(expr) && expr[i+1] == '\'' {
					sb.WriteByte('\'')
					i++
					continue
				}
				break
			}
			sb.WriteByte(expr[i])
		}
		if i >= len(expr) {
			return "", Range{}, false, fmt.Errorf("%w: %q: the sheet name's quote is not closed", format.ErrNoPart, expr)
		}
		name, rest = sb.String(), expr[i+1:]
	} else {
		n, tail, found := strings.Cut(expr, "!")
		name = n
		if found {
			rest = "!" + tail
		}
	}
	if rest == "" {
		return name, Range{}, true, nil
	}
	if !strings.HasPrefix(rest, "!") {
		return "", Range{}, false, fmt.Errorf("%w: %q: want Sheet!A1:B2", format.ErrNoPart, expr)
	}
	r, ok := ParseRange(rest[1:])
	if !ok {
		return "", Range{}, false, fmt.Errorf("%w: %q: %q is not an A1 range (B2:C40, A:C, 2:5, B2)", format.ErrNoPart, expr, rest[1:])
	}
	return name, r, false, nil
}

// Fragment is a sheet's fragment: its quoted name, then ! and the range when
// it has cells.
func Fragment(name string, r Range, ok bool) string {
	if !ok {
		return QuoteName(name)
	}
	return QuoteName(name) + "!" + r.String()
}

// Book renders sheets into b: one part per sheet (Kind "sheet", Fragment the
// sheet's used range), each under a level-1 heading that is also a section.
func Book(b *mdtext.Builder, sheets []*Sheet, lim format.Limits) error {
	for _, s := range sheets {
		u, ok := s.Used()
		block := mdtext.Heading(1, s.Name) + "\n"
		if ok {
			if err := s.checkSize(u, lim); err != nil {
				return err
			}
			block += "\n" + s.Table(u)
		}
		b.Section(s.Name, 1)
		if _, err := b.Part("sheet", s.Name, Fragment(s.Name, u, ok), block); err != nil {
			return err
		}
	}
	return nil
}

// Find returns the sheet called name: exactly, else ignoring case as Excel
// does.
func Find(sheets []*Sheet, name string) (*Sheet, bool) {
	for _, s := range sheets {
		if s.Name == name {
			return s, true
		}
	}
	for _, s := range sheets {
		if strings.EqualFold(s.Name, name) {
			return s, true
		}
	}
	return nil, false
}

// Select renders the cells expr names (Sheet1!B2:C40, 'My Sheet'!A:C, a
// whole sheet by name) as one part of Kind "range" whose Fragment is the
// normalized reference (sheet name as stored, quoted as needed, range
// clipped to the cells that hold values). A sheet that does not exist, or a
// range holding no value, is ErrNoPart.
func Select(sheets []*Sheet, expr string, lim format.Limits) (*format.Text, error) {
	name, r, whole, err := ParseRef(expr)
	if err != nil {
		return nil, err
	}
	s, ok := Find(sheets, name)
	if !ok {
		names := make([]string, 0, len(sheets))
		for _, s := range sheets {
			names = append(names, QuoteName(s.Name))
		}
		return nil, fmt.Errorf("%w: no sheet %q (the sheets are %s)", format.ErrNoPart, name, strings.Join(names, ", "))
	}
	var clipped Range
	if whole {
		clipped, ok = s.Used()
	} else {
		clipped, ok = s.Clip(r)
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s holds no values", format.ErrNoPart, Fragment(s.Name, r, !whole))
	}
	if err := s.checkSize(clipped, lim); err != nil {
		return nil, err
	}
	b := mdtext.New(lim)
	frag := Fragment(s.Name, clipped, true)
	b.Section(s.Name, 1)
	if _, err := b.Part("range", frag, frag, mdtext.Heading(1, s.Name)+"\n\n"+s.Table(clipped)); err != nil {
		return nil, err
	}
	return b.Text(), nil
}
