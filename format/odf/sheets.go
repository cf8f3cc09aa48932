package odf

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/internal/mdtext"
	"github.com/retrieve-dev/retrieve/format/internal/sheet"
	"github.com/retrieve-dev/retrieve/format/internal/zipdoc"
)

// spreadsheet reads office:spreadsheet's tables as sheets.
func (doc *document) spreadsheet(d *zipdoc.Decoder) error {
	return d.Children(func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local != "table" {
				if t.Name.Local == "named-expressions" || t.Name.Local == "database-ranges" || t.Name.Local == "calculation-settings" {
					if err := d.Skip(); err != nil {
						return err
					}
				}
				return nil
			}
			if len(doc.sheets) >= doc.lim.MaxParts {
				return fmt.Errorf("%w: more than %d sheets", format.ErrTooLarge, doc.lim.MaxParts)
			}
			name, _ := zipdoc.Attr(t, "name")
			sh := &sheet.Sheet{Name: name}
			if err := doc.sheet(d, sh); err != nil {
				return fmt.Errorf("sheet %q: %w", name, err)
			}
			doc.cellBytes += sh.Bytes
			doc.sheets = append(doc.sheets, sh)
		}
		return nil
	})
}

// sheet reads one table:table's rows and cells. Repeated rows and columns
// (number-rows-repeated, number-columns-repeated) advance the position
// when empty and repeat the value when not, within the text budget.
func (doc *document) sheet(d *zipdoc.Decoder, sh *sheet.Sheet) error {
	row := 0
	type cellv struct {
		col   int
		value string
	}
	var (
		cells    []cellv
		rowBytes int64
		col      int
		rowRep   int
		colRep   int
		value    string
		typed    bool
		texts    []string
		inCell   bool
		cellDep  int
	)
	return d.Children(func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.EndElement:
			switch {
			case inCell && d.Depth() == cellDep-1:
				inCell = false
				v := value
				if !typed {
					v = strings.Join(texts, "\n")
				}
				if v != "" {
					// Columns past the grid are dropped: a repeat count
					// cannot make a row wider than a sheet.
					for i := 0; i < colRep && col+i < sheet.MaxCol; i++ {
						cells = append(cells, cellv{col + i, v})
						rowBytes += int64(len(v)) + 4
						if doc.cellBytes+rowBytes > doc.lim.MaxText {
							return fmt.Errorf("%w: the sheets hold more than %d bytes", format.ErrTooLarge, doc.lim.MaxText)
						}
					}
				}
				col += colRep
			case t.Name.Local == "table-row":
				if len(cells) == 0 {
					row += rowRep
					return nil
				}
				for i := 0; i < rowRep; i++ {
					r := row + i + 1
					if r > sheet.MaxRow {
						return fmt.Errorf("%w: row %d is past the grid", format.ErrMalformed, r)
					}
					for _, c := range cells {
						sh.Add(r, c.col+1, c.value)
					}
					if doc.cellBytes+sh.Bytes > doc.lim.MaxText {
						return fmt.Errorf("%w: the sheets hold more than %d bytes", format.ErrTooLarge, doc.lim.MaxText)
					}
				}
				row += rowRep
			}
		case xml.StartElement:
			switch t.Name.Local {
			case "table-row":
				rowRep = repeat(t, "number-rows-repeated")
				cells, col, rowBytes = cells[:0], 0, 0
			case "table-cell", "covered-table-cell":
				if inCell {
					return nil
				}
				inCell, cellDep = true, d.Depth()
				colRep = repeat(t, "number-columns-repeated")
				texts = texts[:0]
				value, typed = cellValue(t)
				if _, ok := zipdoc.Attr(t, "formula"); ok {
					doc.formulas++
				}
			case "p", "h":
				if inCell {
					s, err := doc.inline(d)
					if err != nil {
						return err
					}
					texts = append(texts, s)
				}
			case "annotation", "table-columns", "table-column", "shapes", "named-expressions":
				if err := d.Skip(); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// repeat reads a repeat count: at least 1, at most the grid's size.
func repeat(s xml.StartElement, attr string) int {
	v, ok := zipdoc.Attr(s, attr)
	if !ok {
		return 1
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 1
	}
	return min(n, sheet.MaxRow)
}

// cellValue is a typed cell's stored value; typed is false for strings
// and untyped cells, whose text is their paragraphs.
func cellValue(s xml.StartElement) (string, bool) {
	typ, _ := zipdoc.Attr(s, "value-type")
	switch typ {
	case "float", "percentage", "currency":
		v, _ := zipdoc.Attr(s, "value")
		return v, true
	case "date":
		v, _ := zipdoc.Attr(s, "date-value")
		return strings.TrimSuffix(v, "T00:00:00"), true
	case "time":
		v, _ := zipdoc.Attr(s, "time-value")
		return isoDuration(v), true
	case "boolean":
		v, _ := zipdoc.Attr(s, "boolean-value")
		return strings.ToUpper(v), true
	}
	return "", false
}

// isoDuration writes an ODF time value (PT12H30M00S) as 12:30:00; a value
// it cannot read is kept as stored.
func isoDuration(v string) string {
	rest, ok := strings.CutPrefix(v, "PT")
	if !ok {
		return v
	}
	var h, m int
	var sec float64
	var err error
	if i := strings.IndexByte(rest, 'H'); i >= 0 {
		if h, err = strconv.Atoi(rest[:i]); err != nil {
			return v
		}
		rest = rest[i+1:]
	}
	if i := strings.IndexByte(rest, 'M'); i >= 0 {
		if m, err = strconv.Atoi(rest[:i]); err != nil {
			return v
		}
		rest = rest[i+1:]
	}
	if i := strings.IndexByte(rest, 'S'); i >= 0 {
		if sec, err = strconv.ParseFloat(rest[:i], 64); err != nil {
			return v
		}
	}
	return fmt.Sprintf("%02d:%02d:%02d", h, m, int(sec))
}

// presentation reads office:presentation's pages as slides with notes.
func (doc *document) presentation(d *zipdoc.Decoder) error {
	n := 0
	return d.Children(func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local != "page" {
				return nil
			}
			n++
			if n > doc.lim.MaxParts {
				return fmt.Errorf("%w: more than %d slides", format.ErrTooLarge, doc.lim.MaxParts)
			}
			pg, err := doc.page(d)
			if err != nil {
				return fmt.Errorf("slide %d: %w", n, err)
			}
			// As in PPTX: an untitled slide has no heading line, a slide
			// without text no part.
			var blk strings.Builder
			title := pg.title
			if title != "" {
				blk.WriteString(mdtext.Heading(1, title) + "\n")
			} else {
				title = "Slide " + strconv.Itoa(n)
			}
			for _, b := range pg.blocks {
				if blk.Len() > 0 {
					blk.WriteByte('\n')
				}
				blk.WriteString(b + "\n")
			}
			if blk.Len() > 0 {
				doc.b.Section(title, 1)
				if _, err := doc.b.PartIndexed("slide", n, title, "slide="+strconv.Itoa(n), blk.String()); err != nil {
					return err
				}
			}
			if len(pg.notes) > 0 {
				doc.hasNotes = true
				if _, err := doc.b.PartIndexed("notes", n, "notes of slide "+strconv.Itoa(n), "notes="+strconv.Itoa(n), "Notes:\n\n"+strings.Join(pg.notes, "\n")); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

type page struct {
	title  string
	blocks []string
	notes  []string
}

// addFrame files a closed frame's lines by its presentation class: in
// the notes only notes (or unclassed) frames count; on the page the first
// title frame is the title, furniture (page number, date, header, footer)
// is dropped and the rest are blocks.
func (pg *page) addFrame(class string, lines []string, inNotes bool) {
	switch {
	case len(lines) == 0:
	case inNotes:
		if class == "notes" || class == "" {
			pg.notes = append(pg.notes, lines...)
		}
	case class == "title":
		if pg.title == "" {
			pg.title = strings.Join(lines, " ")
		} else {
			pg.blocks = append(pg.blocks, strings.Join(lines, "\n"))
		}
	case class == "page-number" || class == "date-time" || class == "footer" || class == "header":
	default:
		pg.blocks = append(pg.blocks, strings.Join(lines, "\n"))
	}
}

// page reads a draw:page: frames in order (the title frame's text as the
// title; page numbers, dates, headers and footers left out), tables, and
// the presentation:notes' text frames.
func (doc *document) page(d *zipdoc.Decoder) (*page, error) {
	pg := &page{}
	var lines []string
	class := ""
	inNotes := 0
	frameDepth := 0
	err := d.Children(func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.EndElement:
			switch {
			case t.Name.Local == "notes" && d.Depth() == inNotes-1:
				inNotes = 0
			case frameDepth > 0 && d.Depth() == frameDepth-1:
				frameDepth = 0
				pg.addFrame(class, lines, inNotes > 0)
				lines = nil
			}
		case xml.StartElement:
			switch t.Name.Local {
			case "notes":
				inNotes = d.Depth()
			case "frame", "custom-shape", "rect", "ellipse", "polygon", "path", "line", "connector":
				if frameDepth == 0 {
					frameDepth = d.Depth()
					class, _ = zipdoc.Attr(t, "class")
					lines = nil
				}
			case "p", "h":
				s, err := doc.inline(d)
				if err != nil {
					return err
				}
				if s != "" && frameDepth > 0 {
					lines = append(lines, s)
				} else if s != "" {
					pg.blocks = append(pg.blocks, s)
				}
			case "list":
				// list items' paragraphs arrive as p elements above
			case "table":
				rows, err := doc.table(d)
				if err != nil {
					return err
				}
				if tb := mdtext.Table(rows); tb != "" {
					pg.blocks = append(pg.blocks, strings.TrimSuffix(tb, "\n"))
				}
			case "annotation", "title", "desc", "forms", "animations", "thumbnail":
				if err := d.Skip(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return pg, nil
}
