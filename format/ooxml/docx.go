package ooxml

import (
	"context"
	"encoding/xml"
	"io"
	"strconv"
	"strings"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/internal/mdtext"
	"github.com/retrieve-dev/retrieve/format/internal/zipdoc"
)

// DOCX returns the Word document extractor.
func DOCX() format.Extractor { return docx{} }

type docx struct{}

var _ format.Extractor = docx{}

// Assumptions a DOCX extraction states.
const (
	AssumeDOCXChanges  = "tracked changes are shown accepted (inserted text kept, deleted text left out); comments are left out"
	AssumeDOCXFootnote = "footnotes and endnotes are marked [^N] where cited and follow the body"
)

// Info describes DOCX: extensions, media types, a sniffer of word/ members.
func (docx) Info() format.Info {
	return format.Info{
		Name: "docx", Extractor: Extractor, Version: Version,
		MediaTypes: []string{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/vnd.ms-word.document.macroenabled.12"},
		Extensions: []string{".docx", ".docm"},
		Sniff:      func(head []byte) bool { return sniffOOXML(head, "word/") },
	}
}

// wordStyles is what a DOCX extraction needs of styles.xml and
// numbering.xml.
type wordStyles struct {
	// level is a paragraph style's heading level (1-based), 0 for none.
	level map[string]int
	// bullet says whether a list (numId) level is a bullet list.
	bullet map[string]map[string]bool
}

// Extract gives the body's paragraphs and tables, then the cited notes.
func (docx) Extract(ctx context.Context, r io.ReaderAt, size int64, opts format.Options) (*format.Text, error) {
	lim := opts.Limits.WithDefaults()
	p, err := open(ctx, r, size, lim, "document", "Word document")
	if err != nil {
		return nil, wrapf("docx", err)
	}
	st, err := p.wordStyles(ctx)
	if err != nil {
		return nil, wrapf("docx", err)
	}
	w := &wordWriter{b: mdtext.New(lim), st: st, counters: map[string][]int{}, notes: map[string]int{}}
	if err := p.walk(ctx, p.main, w.body); err != nil {
		return nil, wrapf("docx", err)
	}
	if err := w.footnotes(ctx, p); err != nil {
		return nil, wrapf("docx", err)
	}
	t := w.b.Text()
	t.Assumptions = append(t.Assumptions, AssumeDOCXChanges)
	if len(w.noteOrder) > 0 {
		t.Assumptions = append(t.Assumptions, AssumeDOCXFootnote)
	}
	t.Metadata["paragraphs"] = w.b.Count("paragraph")
	t.Metadata["tables"] = w.b.Count("table")
	return t, nil
}

// wordStyles reads heading levels from styles.xml (a style named
// "heading N" or "Title", or with an outline level, or based on one) and
// list kinds from numbering.xml.
func (p *pkg) wordStyles(ctx context.Context) (*wordStyles, error) {
	st := &wordStyles{level: map[string]int{}, bullet: map[string]map[string]bool{}}
	based, err := p.styleLevels(ctx, st)
	if err != nil {
		return nil, err
	}
	inheritLevels(st, based)
	if err := p.listKinds(ctx, st); err != nil {
		return nil, err
	}
	return st, nil
}

// styleLevels reads styles.xml into st.level (levels a style declares
// itself) and returns each style's basedOn parent, so inheritLevels can
// fill in the rest once every style is known.
func (p *pkg) styleLevels(ctx context.Context, st *wordStyles) (map[string]string, error) {
	based := map[string]string{}
	name := p.related(p.rels, p.main, "/styles")
	if name == "" {
		return based, nil
	}
	cur := ""
	err := p.walk(ctx, name, func(d *zipdoc.Decoder, t xml.Token) error {
		s, ok := t.(xml.StartElement)
		if !ok {
			return nil
		}
		switch s.Name.Local {
		case "style":
			cur, _ = zipdoc.Attr(s, "styleId")
		case "name":
			v, _ := zipdoc.Attr(s, "val")
			if l := headingName(v); l > 0 && cur != "" {
				st.level[cur] = l
			}
		case "basedOn":
			based[cur], _ = zipdoc.Attr(s, "val")
		case "outlineLvl":
			v, _ := zipdoc.Attr(s, "val")
			if n, err := strconv.Atoi(v); err == nil && n >= 0 && n < 9 && cur != "" {
				st.level[cur] = n + 1
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return based, nil
}

// inheritLevels gives a style without a level of its own the level of the
// nearest ancestor on its basedOn chain (at most 16 steps, so a cycle
// ends).
func inheritLevels(st *wordStyles, based map[string]string) {
	for id := range based {
		if st.level[id] > 0 {
			continue
		}
		b := based[id]
		for i := 0; i < 16 && b != "" && st.level[b] == 0; i++ {
			b = based[b]
		}
		if l := st.level[b]; l > 0 && b != "" {
			st.level[id] = l
		}
	}
}

// listKinds reads numbering.xml into st.bullet: for each numbering id,
// which levels are bulleted (or unnumbered) rather than ordered.
func (p *pkg) listKinds(ctx context.Context, st *wordStyles) error {
	name := p.related(p.rels, p.main, "/numbering")
	if name == "" {
		return nil
	}
	abs := map[string]map[string]bool{}
	nums := map[string]string{}
	var curAbs, curNum, curLvl string
	err := p.walk(ctx, name, func(d *zipdoc.Decoder, t xml.Token) error {
		s, ok := t.(xml.StartElement)
		if !ok {
			return nil
		}
		switch s.Name.Local {
		case "abstractNum":
			curAbs, _ = zipdoc.Attr(s, "abstractNumId")
			curNum = ""
			abs[curAbs] = map[string]bool{}
		case "lvl":
			curLvl, _ = zipdoc.Attr(s, "ilvl")
		case "numFmt":
			v, _ := zipdoc.Attr(s, "val")
			if curNum == "" && abs[curAbs] != nil {
				abs[curAbs][curLvl] = v == "bullet" || v == "none"
			}
		case "num":
			curNum, _ = zipdoc.Attr(s, "numId")
		case "abstractNumId":
			v, _ := zipdoc.Attr(s, "val")
			if curNum != "" {
				nums[curNum] = v
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for n, a := range nums {
		st.bullet[n] = abs[a]
	}
	return nil
}

// headingName is the level of a built-in heading style's name.
func headingName(name string) int {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "title" {
		return 1
	}
	if rest, ok := strings.CutPrefix(n, "heading "); ok {
		if l, err := strconv.Atoi(rest); err == nil && l >= 1 && l <= 9 {
			return l
		}
	}
	return 0
}

// wordWriter turns document.xml's body into blocks.
type wordWriter struct {
	b        *mdtext.Builder
	st       *wordStyles
	counters map[string][]int
	// notes numbers the footnotes and endnotes in the order they are cited.
	notes     map[string]int
	noteOrder []noteRef
}

type noteRef struct{ kind, id string }

// para is one paragraph being read.
type para struct {
	style, numID, ilvl string
	outline            int
	text               strings.Builder
}

// body handles the tokens of document.xml at body level: a paragraph or a
// table is read whole; anything else (sections, sdt wrappers) is walked
// through.
func (w *wordWriter) body(d *zipdoc.Decoder, t xml.Token) error {
	s, ok := t.(xml.StartElement)
	if !ok {
		return nil
	}
	switch s.Name.Local {
	case "p":
		var p para
		if err := w.readPara(d, &p); err != nil {
			return err
		}
		return w.emitPara(&p)
	case "tbl":
		rows, err := w.readTable(d)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		_, err = w.b.Part("table", "table %d", "table=%d", mdtext.Table(rows))
		return err
	case "sectPr":
		return d.Skip()
	}
	return nil
}

// readPara reads a paragraph's properties and text up to its end.
// Paragraphs nested in it (text boxes) add their text after a space.
func (w *wordWriter) readPara(d *zipdoc.Decoder, p *para) error {
	p.outline = -1
	inT := false
	return d.Children(func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "t":
				inT = true
			case "tab", "ptab":
				// A run's tab; tab stops live in pPr, read by readProps.
				p.text.WriteByte('\t')
			case "br", "cr":
				if typ, _ := zipdoc.Attr(t, "type"); typ != "page" && typ != "column" {
					p.text.WriteByte('\n')
				}
			case "noBreakHyphen":
				p.text.WriteByte('-')
			case "p":
				p.text.WriteByte(' ')
			case "footnoteReference", "endnoteReference":
				id, _ := zipdoc.Attr(t, "id")
				kind := strings.TrimSuffix(t.Name.Local, "Reference")
				key := kind + ":" + id
				n, ok := w.notes[key]
				if !ok {
					n = len(w.noteOrder) + 1
					w.notes[key] = n
					w.noteOrder = append(w.noteOrder, noteRef{kind: kind, id: id})
				}
				p.text.WriteString("[^" + strconv.Itoa(n) + "]")
			case "pPr", "rPr":
				// Properties hold tabs stops (w:tabs/w:tab), not text.
				if err := w.readProps(d, p); err != nil {
					return err
				}
			case "del", "moveFrom", "commentReference", "instrText", "delText", "Fallback", "annotationRef":
				if err := d.Skip(); err != nil {
					return err
				}
			}
		case xml.EndElement:
			if t.Name.Local == "t" {
				inT = false
			}
		case xml.CharData:
			if inT {
				p.text.Write(t)
			}
		}
		return nil
	})
}

// readProps reads a pPr or rPr element for the paragraph's style, list and
// outline level, skipping everything else in it (tab stops, fonts).
func (w *wordWriter) readProps(d *zipdoc.Decoder, p *para) error {
	return d.Children(func(tok xml.Token) error {
		t, ok := tok.(xml.StartElement)
		if !ok {
			return nil
		}
		switch t.Name.Local {
		case "pStyle":
			p.style, _ = zipdoc.Attr(t, "val")
		case "outlineLvl":
			v, _ := zipdoc.Attr(t, "val")
			if n, err := strconv.Atoi(v); err == nil && n < 9 {
				p.outline = n
			}
		case "numId":
			p.numID, _ = zipdoc.Attr(t, "val")
		case "ilvl":
			p.ilvl, _ = zipdoc.Attr(t, "val")
		case "pPrChange", "rPrChange":
			// A change record holds the old properties: not this paragraph's.
			return d.Skip()
		}
		return nil
	})
}

// emitPara writes a paragraph as a heading, a list item or plain text.
func (w *wordWriter) emitPara(p *para) error {
	text := strings.TrimSpace(mdtext.Space(p.text.String()))
	level := w.st.level[p.style]
	if p.outline >= 0 {
		level = p.outline + 1
	}
	if p.numID != "" && p.numID != "0" && level == 0 {
		ilvl, _ := strconv.Atoi(p.ilvl)
		ilvl = max(0, min(ilvl, 8))
		c := w.counters[p.numID]
		if len(c) < 9 {
			c = make([]int, 9)
			w.counters[p.numID] = c
		}
		c[ilvl]++
		for i := ilvl + 1; i < len(c); i++ {
			c[i] = 0
		}
		if text == "" {
			return nil
		}
		marker := strconv.Itoa(c[ilvl]) + ". "
		if w.st.bullet[p.numID] == nil || w.st.bullet[p.numID][strconv.Itoa(ilvl)] {
			marker = "- "
		}
		_, err := w.b.Part("paragraph", "paragraph %d", "para=%d", strings.Repeat("  ", ilvl)+marker+text)
		return err
	}
	if text == "" {
		return nil
	}
	if level > 0 {
		w.b.Section(text, level)
		_, err := w.b.Part("paragraph", "paragraph %d", "para=%d", mdtext.Heading(level, text))
		return err
	}
	_, err := w.b.Part("paragraph", "paragraph %d", "para=%d", text)
	return err
}

// readTable reads a table's rows; a cell's paragraphs are joined with a
// space, a nested table's cells likewise.
func (w *wordWriter) readTable(d *zipdoc.Decoder) ([][]string, error) {
	start := d.Depth()
	var rows [][]string
	var row []string
	var cell strings.Builder
	cellDepth := 0
	err := d.Children(func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "tr":
				if d.Depth() == start+1 {
					row = nil
				}
			case "tc":
				if cellDepth == 0 {
					cellDepth = d.Depth()
					cell.Reset()
				}
			case "p":
				var p para
				if err := w.readPara(d, &p); err != nil {
					return err
				}
				if s := strings.TrimSpace(mdtext.Space(p.text.String())); s != "" {
					if cell.Len() > 0 {
						cell.WriteByte(' ')
					}
					cell.WriteString(s)
				}
			case "tblPr", "tblGrid", "trPr", "tcPr":
				if err := d.Skip(); err != nil {
					return err
				}
			}
		case xml.EndElement:
			switch {
			case t.Name.Local == "tc" && d.Depth() == cellDepth-1:
				row = append(row, cell.String())
				cellDepth = 0
			case t.Name.Local == "tr" && d.Depth() == start:
				rows = append(rows, row)
				row = nil
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(row) > 0 {
		rows = append(rows, row)
	}
	return rows, nil
}

// footnotes writes the cited footnotes and endnotes after the body, in the
// order they were cited.
func (w *wordWriter) footnotes(ctx context.Context, p *pkg) error {
	if len(w.noteOrder) == 0 {
		return nil
	}
	texts := map[string]string{}
	for _, kind := range []string{"footnote", "endnote"} {
		name := p.related(p.rels, p.main, "/"+kind+"s")
		if name == "" {
			continue
		}
		id := ""
		var sb strings.Builder
		err := p.walk(ctx, name, func(d *zipdoc.Decoder, t xml.Token) error {
			switch t := t.(type) {
			case xml.StartElement:
				switch t.Name.Local {
				case kind:
					id, _ = zipdoc.Attr(t, "id")
					sb.Reset()
				case "p":
					var pp para
					if err := w.readPara(d, &pp); err != nil {
						return err
					}
					if s := strings.TrimSpace(mdtext.Space(pp.text.String())); s != "" {
						if sb.Len() > 0 {
							sb.WriteByte(' ')
						}
						sb.WriteString(s)
					}
				}
			case xml.EndElement:
				if t.Name.Local == kind {
					texts[kind+":"+id] = sb.String()
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for i, n := range w.noteOrder {
		text, ok := texts[n.kind+":"+n.id]
		if !ok {
			continue
		}
		num := strconv.Itoa(i + 1)
		if _, err := w.b.PartIndexed("footnote", i+1, "footnote "+num, "footnote="+num, "[^"+num+"]: "+text); err != nil {
			return err
		}
	}
	return nil
}
