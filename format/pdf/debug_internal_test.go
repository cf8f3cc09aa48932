package pdf

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
)

func TestDebugDump(t *testing.T) {
	path := os.Getenv("PDFDUMP")
	if path == "" {
		t.Skip()
	}
	f, _ := os.Open(path)
	st, _ := f.Stat()
	d, err := open(context.Background(), f, st.Size(), format.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	pages, _ := d.pageList(d.dictOf(d.trailer["Root"]))
	n, _ := strconv.Atoi(os.Getenv("PDFPAGE"))
	p := pages[n-1]
	fonts := map[objRef]*font{}
	pg := d.pageGlyphs(p, fonts)
	for i, g := range pg.glyphs {
		if i > 100000 {
			break
		}
		fmt.Printf("%q x0=%.2f x1=%.2f y=%.2f size=%.2f\n", g.text, g.x0, g.x1, g.y, g.size)
	}
	for r, f := range fonts {
		if f != nil {
			fmt.Println(r, len(f.widths), f.first, f.missing, f.scale, f.cid, f.byName != nil)
		}
	}
	fmt.Println(d.problems)
}

func TestDebugFonts(t *testing.T) {
	path := os.Getenv("PDFDUMP")
	if path == "" {
		t.Skip()
	}
	f, _ := os.Open(path)
	st, _ := f.Stat()
	d, _ := open(context.Background(), f, st.Size(), format.DefaultLimits)
	pages, _ := d.pageList(d.dictOf(d.trailer["Root"]))
	p := pages[0]
	fonts := d.dictOf(p.res["Font"])
	for n, x := range fonts {
		fd := d.dictOf(x)
		fmt.Println(n, fd["BaseFont"], fd["Subtype"], d.resolve(fd["Encoding"]), fd["ToUnicode"] != nil)
		if tu, ok := d.resolve(fd["ToUnicode"]).(stream); ok {
			b, _ := d.decode(tu)
			fmt.Println(string(b[:min(len(b), 3000)]))
		}
	}
}
