package ui

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/retrieve-dev/retrieve"
)

// pageView draws one PDF page of a citation as SVG: every text line of the
// page as a box (from the page's own evidence anchors, re-read without
// recording), the cited boxes highlighted. No PDF renderer is needed: the
// boxes are what the extractor placed (PDF user space: points, origin at the
// bottom left, y up).
type pageView struct {
	Page    int
	Locator string
	// OpenURL opens the cited document's bytes at the page (#page=N, RFC
	// 8118) when the snapshot is kept; empty otherwise.
	OpenURL string
	Width   float64
	Height  float64
	Boxes   []pageBox
	// Partial says the page's other lines could not be read again (the
	// document changed or is gone): only the cited boxes are drawn.
	Partial bool
}

// pageBox is a box in SVG coordinates (y down).
type pageBox struct {
	X, Y, W, H float64
	Cited      bool
	Title      string
}

// pageAnchor matches a document anchor with a page and a box:
// <locator>#page=N&box=x0,y0,x1,y1 (docs/CONTRACT.md).
var pageAnchor = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(.*)#page=(\d+)(?::[\d,-]+)?&box=(-?[\d.]+),(-?[\d.]+),(-?[\d.]+),(-?[\d.]+)$`)
})

type rawBox struct{ x0, y0, x1, y1 float64 }

func parseBoxAnchor(a string) (locator string, page int, b rawBox, ok bool) {
	m := pageAnchor().FindStringSubmatch(a)
	if m == nil {
		return "", 0, b, false
	}
	page, _ = strconv.Atoi(m[2])
	var f [4]float64
	for i := range f {
		v, err := strconv.ParseFloat(m[3+i], 64)
		if err != nil {
			return "", 0, b, false
		}
		f[i] = v
	}
	return m[1], page, rawBox{f[0], f[1], f[2], f[3]}, true
}

// pageOf builds the page view of a result whose evidence anchors place text
// on a PDF page (the first page it cites); nil for any other result.
func (h *Handler) pageOf(r *http.Request, res *retrieve.Result) *pageView {
	var cited []rawBox
	locator, page := "", 0
	for _, a := range res.EvidenceAnchors {
		loc, p, b, ok := parseBoxAnchor(a)
		if !ok {
			continue
		}
		if page == 0 {
			locator, page = loc, p
		}
		if loc == locator && p == page {
			cited = append(cited, b)
		}
	}
	if page == 0 {
		return nil
	}
	v := &pageView{Page: page, Locator: locator}
	// The page's every line: the page read again, not recorded.
	var all retrieve.Result
	err := h.call(r.Context(), "retrieve", map[string]any{"target": fmt.Sprintf("%s#page=%d", locator, page), "no_record": true}, &all)
	var others []rawBox
	if err == nil && all.Error == nil {
		for _, a := range all.EvidenceAnchors {
			if _, p, b, ok := parseBoxAnchor(a); ok && p == page {
				others = append(others, b)
			}
		}
	}
	v.Partial = len(others) == 0
	// US Letter unless the text reaches further (the media box is not in
	// the contract; the boxes are enough to place the text).
	v.Width, v.Height = 612, 792
	for _, b := range append(append([]rawBox{}, cited...), others...) {
		v.Width = max(v.Width, b.x1+36)
		v.Height = max(v.Height, b.y1+36)
	}
	add := func(b rawBox, isCited bool) {
		v.Boxes = append(v.Boxes, pageBox{X: b.x0, Y: v.Height - b.y1, W: max(b.x1-b.x0, 1), H: max(b.y1-b.y0, 1), Cited: isCited,
			Title: fmt.Sprintf("%.1f,%.1f,%.1f,%.1f", b.x0, b.y0, b.x1, b.y1)})
	}
	for _, b := range others {
		add(b, false)
	}
	for _, b := range cited {
		add(b, true)
	}
	if h.opts.Snapshots != nil && res.Citation.SourceHash != nil {
		v.OpenURL = "/ui/snapshot/" + *res.Citation.SourceHash + "#page=" + strconv.Itoa(page)
	}
	return v
}

// maxSnapshotView caps a document served to the browser.
const maxSnapshotView = 64 << 20

// snapshot serves a kept PDF's bytes so that a browser opens it at the
// cited page (/ui/snapshot/sha256:<hex>#page=N). Only PDFs are served, in a
// sandbox (no script, its own origin): other formats could run in the
// pages' origin.
func (h *Handler) snapshot(w http.ResponseWriter, r *http.Request) {
	hash := r.PathValue("hash")
	if h.opts.Snapshots == nil || !strings.HasPrefix(hash, "sha256:") {
		h.fail(w, r, retrieve.Errorf(retrieve.CodeNotFound, "no snapshot %s here", hash).WithHint("the server keeps no snapshots"))
		return
	}
	rc, err := h.opts.Snapshots.OpenSnapshot(r.Context(), hash)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	defer rc.Close()
	br := bufio.NewReader(io.LimitReader(rc, maxSnapshotView+1))
	head, _ := br.Peek(1024)
	if !bytes.Contains(head, []byte("%PDF-")) {
		h.fail(w, r, retrieve.Errorf(retrieve.CodeUnsupportedFormat, "snapshot %s is not a PDF", hash).
			WithHint("only PDFs open in the browser; read others with retrieve snapshot %s", hash))
		return
	}
	body, err := io.ReadAll(br)
	if err != nil {
		h.fail(w, r, retrieve.Errorf(retrieve.CodeInternal, "read snapshot %s", hash).WithErr(err))
		return
	}
	if len(body) > maxSnapshotView {
		h.fail(w, r, retrieve.Errorf(retrieve.CodeTooLarge, "snapshot %s is over %d bytes", hash, maxSnapshotView).
			WithHint("retrieve snapshot %s > file.pdf, then open the file", hash))
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/pdf")
	hd.Set("Content-Disposition", "inline")
	hd.Set("Content-Security-Policy", "sandbox; default-src 'none'; object-src 'self'; plugin-types application/pdf")
	hd.Set("Cache-Control", "private, max-age=3600, immutable")
	_, _ = w.Write(body)
}
