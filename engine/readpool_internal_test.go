package engine

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/retrieve-dev/retrieve"
)

// A read buffer goes back to the pool only when the outcome holds none of
// its bytes: data that points into it keeps it out (the next extraction
// would write over the data), a copy lets it be reused.
func TestReadBufferPooledOnlyWhenNotKept(t *testing.T) {
	req := &retrieve.Request{}
	br, base := getReader(strings.NewReader("line one\nline two\n"), 100)
	if base == 0 {
		t.Fatal("no buffer address for a pooled size")
	}
	b, _ := br.Peek(8)
	aliased := &outcome{data: unsafe.String(&b[0], len(b)), format: "text"}
	putReader(br, base, req, aliased, nil)
	for range 3 {
		if again, _ := getReader(strings.NewReader("x"), 100); again == br {
			t.Fatal("a buffer whose bytes the data holds was pooled")
		}
	}

	reused := false
	for range 3 { // a garbage collection may empty the pool between put and get
		br, base := getReader(strings.NewReader("line one\nline two\n"), 100)
		b, _ := br.Peek(8)
		putReader(br, base, req, &outcome{data: string(b), dataBytes: []byte(string(b)), format: "text"}, nil)
		if again, _ := getReader(strings.NewReader("x"), 100); again == br {
			reused = true
			break
		}
	}
	if !reused {
		t.Fatal("a buffer whose bytes were copied out was not reused")
	}
	// An outcome of a document extractor, or a failed extraction, never
	// gives its buffer back.
	br, base = getReader(strings.NewReader("x"), 100)
	putReader(br, base, req, &outcome{metadata: map[string]any{"encoding": "utf-16"}}, nil)
	if again, _ := getReader(strings.NewReader("x"), 100); again == br {
		t.Fatal("a document extractor's buffer was pooled")
	}
}
