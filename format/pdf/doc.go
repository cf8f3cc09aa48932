// Package pdf extracts the text layer of PDF files, page by page, in pure
// Go (no cgo, no external program): format.Extractor for "pdf".
//
// # Output
//
// Text.Text holds the pages in order; each page is a format.Part (Kind
// "page", Index N, Label the page label from /PageLabels or N, Fragment
// "page=N" as in RFC 8118) whose text ends with "\n" (an empty page is a
// single "\n"); between two pages a line holds a single form feed ("\f\n"),
// which belongs to no part. Text.Format is "text". Each text line has a
// format.Box in PDF user-space points (1/72 inch) with the origin at the
// bottom left of the page's media box, y up, and the byte span of the line
// in Text (a word moved up by de-hyphenation has a box of its own, the box
// of the line it was drawn on). The PDF outline (bookmarks) gives
// Text.Sections, each starting where its page's part starts (entries whose
// page was not extracted are left out). Metadata: pages, pdf_version, and
// producer, creator and title where the document info has them.
//
// # Reading order and words
//
// Glyphs are placed from the content streams (text matrix, CTM, font
// widths from /Widths, /W or the standard 14 fonts' AFM metrics), then a
// layout pass rebuilds the reading order: glyphs drawn together on one
// baseline make chunks; a gap wider than 0.15 em between glyphs is a word
// space (explicit spaces count unless the next glyph is kerned back over
// them); chunks are read by an XY-cut: regions separated by an empty band
// at least one em high are read top to bottom, a vertical gutter at least
// 0.8 em wide whose two sides are text columns (each at least 8 em wide,
// lines filling at least 60% of it) splits columns read left to right, and
// where a full-width line (a title) crosses the gutter, the runs of lines
// that share it are split on their own. Inside a region, chunks are grouped
// into lines by baseline (superscripts join their line) and read left to
// right, so a table's row stays on one line when its cells share a
// baseline. Text in other directions (rotated labels) follows the upright
// text. Ligature glyphs (U+FB00–FB06: ff, fi, fl, ffi, ffl, st) become their
// letters; right-to-left words (Hebrew, Arabic) are given in logical order.
//
// De-hyphenation: when a line ends with a hyphen (-, U+00AD or U+2010)
// after a lower-case letter and the next line of the same region starts
// with a lower-case letter, the hyphen is dropped and the next line's first
// word moves up to end the line ("exam-" / "ple text" gives "example" /
// "text"), as pdftotext does; so `quote --loose`, which folds whitespace
// and case, finds a sentence across the line break. A hyphen before an
// upper-case letter or a digit (a compound such as "PDF-" / "2.0") stays.
//
// Because the order is reconstructed by these heuristics, every extraction
// carries the deduction LayoutDeduction (0.05) with the assumption
// "reading order reconstructed by a layout pass": on the corpus of
// bench/pdfcorpus.sh the words match pdftotext's (median recall 1.000) but
// the order of regions on complex pages (figures, sidebars, tables in
// columns) is a guess a reader should know about; 0.05 is the same
// deduction the contract gives other heuristic extraction (readability).
//
// Clipping: glyphs outside the clipping path's bounding box (by more than
// 0.1 em) are not taken, as a viewer does not show them (pdftotext keeps
// them). Annotation appearance streams (form fields, signatures, free
// text) are drawn after the page, as viewers and pdftotext show them.
//
// # Fonts
//
// Text comes from the font's ToUnicode CMap (bfchar, bfrange; wide ranges
// kept as ranges), else from its encoding (/Encoding with /Differences over
// Standard, WinAnsi, MacRoman or PDFDoc; the built-in encoding of an
// embedded Type 1 program; glyph names through the Adobe Glyph List,
// uniXXXX, uXXXX, f_i). Type0 (CID) fonts take codes from their CMap's
// codespace (Identity-H/V: two bytes) and widths from /W and /DW. A CID
// font without ToUnicode, or a simple font whose glyph names are not
// standard (a subset with names like g12), gives no text for those glyphs:
// the extractor does not guess (pdftotext prints the raw codes there). How
// many were left out is in Metadata["unmapped_glyphs"] and an assumption;
// pages whose only glyphs are such give ErrNoText saying so.
//
// # Limits and errors
//
// The package reads the file through its own object layer rather than a
// library: rsc.io/pdf, the best pure-Go candidate, panics on damaged input,
// allocates an xref table of the trailer's /Size before checking it,
// follows /Prev loops forever, has no bound on stream inflation, refuses
// PDF 2.0 headers and cannot rebuild a broken cross-reference table; on the
// corpus of docs/documents.md it read 41 of 64 PDFs (8 panics, 4 refusals,
// 13 over 20 s) at about 100 ms a page, this package all 64 at about 1 ms.
// Here, each limit of format.Limits holds:
// MaxInput (the file size), MaxInflated (any one stream after its filters,
// and a page's content: FlateDecode bombs are ErrTooLarge), MaxParts (the
// page count), MaxDepth (nesting of arrays and dictionaries, reference
// chains, the page tree, the outline and form XObjects, at most 32 deep),
// MaxText (the text). A page may draw at most 500,000 glyphs and run at
// most 20,000,000 operators (a tree of forms drawing each other twice per
// level is refused, not run 2^depth times); ctx is checked as the work
// goes. Reference cycles are cut (an object that refers to itself reads as
// null; a page tree with a cycle is ErrMalformed). With Options.Parts only
// the pages asked for are interpreted (the page tree is read, no other
// content stream is decoded), and one page's glyphs are held at a time.
//
// Errors wrap the format's sentinels: an encrypted file is ErrEncrypted
// with the hint to decrypt it first (qpdf --decrypt in.pdf out.pdf), also
// when its user password is empty; no text on the pages extracted is
// ErrNoText (the hint: run OCR, e.g. ocrmypdf); a file that is not a PDF,
// a cross-reference table that cannot be rebuilt, or no page tree is
// ErrMalformed; a page past the end is ErrNoPart. A damaged object inside
// an otherwise readable file is skipped, as PDF readers do, and an
// assumption says how many problems were worked around. A panic inside the
// parser is recovered and returned as ErrMalformed.
package pdf
