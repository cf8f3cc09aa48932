package ooxml

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/internal/mdtext"
	"github.com/retrieve-dev/retrieve/format/internal/sheet"
	"github.com/retrieve-dev/retrieve/format/internal/zipdoc"
)

// XLSX returns the Excel workbook extractor; it is also a format.Selector.
func XLSX() format.Extractor { return xlsx{} }

type xlsx struct{}

var (
	_ format.Extractor = xlsx{}
	_ format.Selector  = xlsx{}
)

// Assumptions an XLSX extraction states when they apply.
const (
	AssumeFormulas = "formula cells give the values cached by the application that last saved the workbook, not values recomputed now"
	AssumeNumbers  = "numbers are the values stored in the workbook, not formatted by their cells' number formats; cells formatted as dates or times are written in ISO 8601"
	AssumeHidden   = "hidden sheets are included"
)

// Info describes XLSX: extensions, media types, a sniffer of xl/ members.
func (xlsx) Info() format.Info {
	return format.Info{
		Name: "xlsx", Extractor: Extractor, Version: Version,
		MediaTypes: []string{"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "application/vnd.ms-excel.sheet.macroenabled.12"},
		Extensions: []string{".xlsx", ".xlsm"},
		Sniff:      func(head []byte) bool { return sniffOOXML(head, "xl/") },
	}
}

// Extract gives every worksheet's used range as a table.
func (xlsx) Extract(ctx context.Context, r io.ReaderAt, size int64, opts format.Options) (*format.Text, error) {
	wb, err := readWorkbook(ctx, r, size, opts.Limits, "")
	if err != nil {
		return nil, wrapf("xlsx", err)
	}
	b := mdtext.New(opts.Limits)
	if err := sheet.Book(b, wb.sheets, opts.Limits); err != nil {
		return nil, wrapf("xlsx", err)
	}
	t := b.Text()
	wb.describe(t)
	return t, nil
}

// Select reads only the sheet expr names and gives the cells of its range.
func (xlsx) Select(ctx context.Context, r io.ReaderAt, size int64, expr string, opts format.Options) (*format.Text, error) {
	name, _, _, err := sheet.ParseRef(expr)
	if err != nil {
		return nil, err
	}
	wb, err := readWorkbook(ctx, r, size, opts.Limits, name)
	if err != nil {
		return nil, wrapf("xlsx", err)
	}
	t, err := sheet.Select(wb.sheets, expr, opts.Limits)
	if err != nil {
		return nil, fmt.Errorf("xlsx: %w", err)
	}
	wb.describe(t)
	return t, nil
}

// workbook is what was read of a workbook.
type workbook struct {
	sheets   []*sheet.Sheet
	names    []string
	formulas int
	dates    int
	hidden   int
	noCache  int
	missing  int
}

func (wb *workbook) describe(t *format.Text) {
	t.Assumptions = append(t.Assumptions, AssumeNumbers)
	if wb.formulas > 0 {
		t.Assumptions = append(t.Assumptions, AssumeFormulas)
	}
	if wb.noCache > 0 {
		t.Assumptions = append(t.Assumptions, fmt.Sprintf("%d formula cells have no cached value and are empty", wb.noCache))
	}
	if wb.missing > 0 {
		t.Assumptions = append(t.Assumptions, fmt.Sprintf("%d cells name a shared string the workbook does not have and are empty", wb.missing))
	}
	if wb.hidden > 0 {
		t.Assumptions = append(t.Assumptions, AssumeHidden)
	}
	t.Metadata["sheets"] = wb.names
	t.Metadata["formula_cells"] = wb.formulas
}

type sheetRef struct {
	name, member string
	hidden       bool
}

// readWorkbook reads the workbook's sheets, or only the one called only
// when only is not empty (a selection reads one sheet).
func readWorkbook(ctx context.Context, r io.ReaderAt, size int64, lim format.Limits, only string) (*workbook, error) {
	lim = lim.WithDefaults()
	p, err := open(ctx, r, size, lim, "workbook", "workbook")
	if err != nil {
		return nil, err
	}
	var refs []sheetRef
	date1904 := false
	err = p.walk(ctx, p.main, func(d *zipdoc.Decoder, t xml.Token) error {
		s, ok := t.(xml.StartElement)
		if !ok {
			return nil
		}
		switch s.Name.Local {
		case "workbookPr":
			v, _ := zipdoc.Attr(s, "date1904")
			date1904 = v == "1" || v == "true"
		case "sheet":
			name, _ := zipdoc.Attr(s, "name")
			id, _ := zipdoc.Attr(s, "id")
			state, _ := zipdoc.Attr(s, "state")
			rel, ok := p.rels[id]
			if !ok || !strings.HasSuffix(rel.Type, "/worksheet") {
				return nil // a chart sheet or a dangling id: no cells
			}
			member, ok := p.a.Member(p.main, rel)
			if !ok {
				return nil
			}
			if len(refs) >= lim.MaxParts {
				return fmt.Errorf("%w: more than %d sheets", format.ErrTooLarge, lim.MaxParts)
			}
			refs = append(refs, sheetRef{name: name, member: member, hidden: state == "hidden" || state == "veryHidden"})
		case "sheetData", "definedNames", "calcPr":
			return errStop
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	wb := &workbook{}
	for _, ref := range refs {
		wb.names = append(wb.names, ref.name)
	}
	if only != "" {
		var keep []sheetRef
		for _, ref := range refs {
			if ref.name == only {
				keep = append(keep, ref)
			}
		}
		if keep == nil {
			for _, ref := range refs {
				if strings.EqualFold(ref.name, only) {
					keep = append(keep, ref)
					break
				}
			}
		}
		if keep == nil {
			return nil, fmt.Errorf("%w: no sheet %q (the sheets are %s)", format.ErrNoPart, only, quoteAll(wb.names))
		}
		refs = keep[:1]
	}
	strs, err := p.sharedStrings(ctx, lim)
	if err != nil {
		return nil, err
	}
	styles, err := p.cellStyles(ctx)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, ref := range refs {
		sh := &sheet.Sheet{Name: ref.name}
		if err := p.readSheet(ctx, ref.member, sh, strs, styles, date1904, wb, lim.MaxText-total); err != nil {
			return nil, err
		}
		total += sh.Bytes
		if ref.hidden {
			wb.hidden++
		}
		wb.sheets = append(wb.sheets, sh)
	}
	return wb, nil
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = sheet.QuoteName(n)
	}
	return strings.Join(q, ", ")
}

// sharedStrings reads the shared string table: each si's text runs joined,
// phonetic runs (rPh) left out.
func (p *pkg) sharedStrings(ctx context.Context, lim format.Limits) ([]string, error) {
	name := p.related(p.rels, p.main, "/sharedStrings")
	if name == "" {
		return nil, nil
	}
	var out []string
	var cur strings.Builder
	var bytes int64
	inT, inPh := false, false
	err := p.walk(ctx, name, func(d *zipdoc.Decoder, t xml.Token) error {
		switch t := t.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "si":
				cur.Reset()
			case "rPh":
				inPh = true
			case "t":
				inT = !inPh
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "si":
				out = append(out, cur.String())
				bytes += int64(cur.Len()) + 16
				if bytes > lim.MaxText {
					return fmt.Errorf("%w: the shared strings hold more than %d bytes", format.ErrTooLarge, lim.MaxText)
				}
			case "rPh":
				inPh = false
			case "t":
				inT = false
			}
		case xml.CharData:
			if inT {
				cur.Write(t)
			}
		}
		return nil
	})
	return out, err
}

// dateKind says how a number format shows a number.
type dateKind uint8

const (
	notDate dateKind = iota
	dateOnly
	timeOnly
	dateTime
)

// cellStyles maps a cell style index (the s attribute) to how its number
// format shows a number.
func (p *pkg) cellStyles(ctx context.Context) ([]dateKind, error) {
	name := p.related(p.rels, p.main, "/styles")
	if name == "" {
		return nil, nil
	}
	custom := map[int]string{}
	var out []dateKind
	inXfs := false
	err := p.walk(ctx, name, func(d *zipdoc.Decoder, t xml.Token) error {
		switch t := t.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "numFmt":
				id, _ := zipdoc.Attr(t, "numFmtId")
				code, _ := zipdoc.Attr(t, "formatCode")
				if n, err := strconv.Atoi(id); err == nil {
					custom[n] = code
				}
			case "cellXfs":
				inXfs = true
			case "xf":
				if inXfs {
					id, _ := zipdoc.Attr(t, "numFmtId")
					n, _ := strconv.Atoi(id)
					out = append(out, numFmtKind(n, custom))
				}
			}
		case xml.EndElement:
			if t.Name.Local == "cellXfs" {
				return errStop
			}
		}
		return nil
	})
	return out, err
}

// numFmtKind tells dates from numbers: the built-in date and time formats
// (ECMA-376 §18.8.30, with the East Asian ones), or a custom code with
// date or time letters outside quotes, escapes and colour brackets.
func numFmtKind(id int, custom map[int]string) dateKind {
	switch {
	case id >= 14 && id <= 17, id >= 27 && id <= 31, id >= 34 && id <= 36, id >= 50 && id <= 58:
		return dateOnly
	case id >= 18 && id <= 21, id >= 45 && id <= 47, id == 32 || id == 33:
		return timeOnly
	case id == 22:
		return dateTime
	}
	code, ok := custom[id]
	if !ok {
		return notDate
	}
	// Only the first section (positive numbers) decides.
	var date, tim bool
	inQuote := false
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case inQuote:
			inQuote = c != '"'
		case c == '"':
			inQuote = true
		case c == '\\' || c == '_' || c == '*':
			i++
		case c == ';':
			i = len(code)
		case c == '[':
			j := strings.IndexByte(code[i:], ']')
			if j < 0 {
				i = len(code)
				break
			}
			inner := strings.ToLower(code[i+1 : i+j])
			if inner != "" && strings.Trim(inner, "hms") == "" {
				tim = true // [h]:mm elapsed time
			}
			i += j
		default:
			switch c | 0x20 {
			case 'y', 'd':
				date = true
			case 'h', 's':
				tim = true
			case 'e':
				// "General" and scientific notation carry an e; neither is a date.
				if strings.HasPrefix(strings.ToLower(code[i:]), "e+") || strings.HasPrefix(strings.ToLower(code[i:]), "e-") {
					return notDate
				}
			}
		}
	}
	switch {
	case date && tim:
		return dateTime
	case date:
		return dateOnly
	case tim:
		return timeOnly
	}
	return notDate
}

// readSheet streams a worksheet's cells into sh.
func (p *pkg) readSheet(ctx context.Context, member string, sh *sheet.Sheet, strs []string, styles []dateKind, date1904 bool, wb *workbook, budget int64) error {
	r := &sheetReader{sh: sh, strs: strs, styles: styles, date1904: date1904, wb: wb, budget: budget}
	return p.walk(ctx, member, func(d *zipdoc.Decoder, t xml.Token) error {
		switch t := t.(type) {
		case xml.StartElement:
			return r.start(d, t)
		case xml.CharData:
			switch {
			case r.inV:
				r.v.Write(t)
			case r.inT:
				r.is.Write(t)
			}
		case xml.EndElement:
			return r.end(t)
		}
		return nil
	})
}

// sheetReader is readSheet's state while it walks a worksheet's XML: what
// it was given, the current row and column, and the cell being read, kept
// in one place so that opening and closing elements are separate steps.
type sheetReader struct {
	sh       *sheet.Sheet
	strs     []string
	styles   []dateKind
	date1904 bool
	wb       *workbook
	budget   int64

	row, col                           int
	inCell, inV, inIs, inT, inPh, hasF bool
	typ, style                         string
	v, is                              strings.Builder
}

// start handles an opening element: a row or cell moves the position, and
// the elements inside a cell say which text is its value.
func (r *sheetReader) start(d *zipdoc.Decoder, t xml.StartElement) error {
	switch t.Name.Local {
	case "row":
		return r.startRow(t)
	case "c":
		return r.startCell(t)
	case "f":
		r.hasF = r.inCell
	case "v":
		r.inV = r.inCell
	case "is":
		r.inIs = r.inCell
	case "rPh":
		r.inPh = true
	case "t":
		r.inT = r.inIs && !r.inPh
	case "extLst":
		return d.Skip()
	}
	return nil
}

// startRow moves to a row: the one its r attribute names, else the next.
func (r *sheetReader) startRow(t xml.StartElement) error {
	if ref, ok := zipdoc.Attr(t, "r"); ok {
		n, err := strconv.Atoi(ref)
		if err != nil || n < 1 || n > sheet.MaxRow {
			return fmt.Errorf("%w: row number %q", format.ErrMalformed, ref)
		}
		r.row = n
	} else {
		r.row++
	}
	r.col = 0
	return nil
}

// startCell begins a cell: it resets the cell's text and moves to the
// cell its r attribute names, else the next column.
func (r *sheetReader) startCell(t xml.StartElement) error {
	r.inCell, r.hasF = true, false
	r.v.Reset()
	r.is.Reset()
	r.typ, _ = zipdoc.Attr(t, "t")
	r.style, _ = zipdoc.Attr(t, "s")
	if ref, ok := zipdoc.Attr(t, "r"); ok {
		c, row, ok := sheet.ParseCell(ref)
		if !ok {
			return fmt.Errorf("%w: cell reference %q", format.ErrMalformed, ref)
		}
		r.col, r.row = c, row
	} else {
		r.col++
	}
	if r.row == 0 {
		r.row = 1
	}
	return nil
}

// end handles a closing element: a closed cell is added to the sheet, and
// the end of sheetData stops the walk.
func (r *sheetReader) end(t xml.EndElement) error {
	switch t.Name.Local {
	case "v":
		r.inV = false
	case "t":
		r.inT = false
	case "rPh":
		r.inPh = false
	case "is":
		r.inIs = false
	case "c":
		r.inCell = false
		return r.endCell()
	case "sheetData":
		return errStop
	}
	return nil
}

// endCell adds a closed cell's shown value to the sheet, counts its
// formula (and whether the formula has a cached value), and holds the
// sheet to the text budget.
func (r *sheetReader) endCell() error {
	val, err := cellValue(r.typ, r.v.String(), r.is.String(), r.strs, r.styles, r.style, r.date1904, r.wb)
	if err != nil {
		return fmt.Errorf("cell %s%d: %w", sheet.ColName(r.col), r.row, err)
	}
	if r.hasF {
		r.wb.formulas++
		if r.v.Len() == 0 && r.typ != "inlineStr" {
			r.wb.noCache++
		}
	}
	r.sh.Add(r.row, r.col, val)
	if r.sh.Bytes > r.budget {
		return fmt.Errorf("%w: the sheets hold more than the text limit", format.ErrTooLarge)
	}
	return nil
}

// cellValue is the text a cell shows, from its type and stored value.
func cellValue(typ, v, inline string, strs []string, styles []dateKind, style string, date1904 bool, wb *workbook) (string, error) {
	switch typ {
	case "s":
		if v == "" {
			return "", nil
		}
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || i < 0 || i >= len(strs) {
			// One dangling index should not cost the whole workbook:
			// the cell stays empty and an assumption counts it.
			wb.missing++
			return "", nil
		}
		return strs[i], nil
	case "inlineStr":
		return inline, nil
	case "b":
		switch strings.TrimSpace(v) {
		case "1", "true":
			return "TRUE", nil
		case "0", "false":
			return "FALSE", nil
		}
		return v, nil
	case "str", "e", "d":
		return v, nil
	}
	if v == "" {
		return "", nil
	}
	kind := notDate
	if style != "" {
		if i, err := strconv.Atoi(style); err == nil && i >= 0 && i < len(styles) {
			kind = styles[i]
		}
	}
	if kind == notDate {
		return v, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || f > 2958465 { // 9999-12-31
		return v, nil
	}
	wb.dates++
	return serialTime(f, date1904, kind), nil
}

// serialTime writes an Excel serial date in ISO 8601: days since
// 1899-12-30 (Excel's 1900 system, whose fictitious 1900-02-29 is serial
// 60: serials before it are one day later than the plain count gives), or
// since 1904-01-01.
func serialTime(f float64, date1904 bool, kind dateKind) string {
	days := math.Floor(f)
	secs := math.Round((f - days) * 86400)
	if secs >= 86400 {
		days++
		secs -= 86400
	}
	base := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	if date1904 {
		base = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
	} else if days > 0 && days < 60 {
		days++
	}
	t := base.AddDate(0, 0, int(days)).Add(time.Duration(secs) * time.Second)
	switch {
	case kind == timeOnly && days == 0:
		return t.Format("15:04:05")
	case kind == dateOnly && secs == 0:
		return t.Format("2006-01-02")
	}
	return t.Format("2006-01-02T15:04:05")
}
