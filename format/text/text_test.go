package text_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/formattest"
	"github.com/retrieve-dev/retrieve/format/text"
)

// repeat builds a large sample: head, then body n times with %d replaced
// by the count, then tail.
func repeat(head, body, tail string, size int) []byte {
	var b bytes.Buffer
	b.WriteString(head)
	for i := 0; b.Len() < size; i++ {
		if i > 0 && tail == "]" {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, body, i)
	}
	b.WriteString(tail)
	return b.Bytes()
}

const big = 2 << 20

func TestPlain(t *testing.T) {
	formattest.Run(t, text.Plain(), []formattest.Sample{
		{Name: "notes.txt", Data: []byte("The first line.\nEvery citation is checkable again.\n"), Phrase: "Every citation is checkable"},
		{Name: "utf16.txt", Data: []byte("\xff\xfeh\x00\xe9\x00l\x00l\x00o\x00 \x00w\x00o\x00r\x00l\x00d\x00\n\x00"), Phrase: "héllo world"},
		{Name: "large.txt", Data: repeat("", "line %d of a long log with words in it\n", "", big), Phrase: "line 7 of a long log", Large: true},
	})
}

func TestMarkdown(t *testing.T) {
	formattest.Run(t, text.Markdown(), []formattest.Sample{
		{Name: "guide.md", Data: []byte("# Guide\n\nIntro text here.\n\n## Install\n\nRun the installer now.\n"), Phrase: "Run the installer"},
		{Name: "large.md", Data: repeat("# Big\n\n", "## Part %d\n\nSome words of part.\n\n", "", big), Phrase: "## Part 9\n", Large: true},
	})
}

func TestCode(t *testing.T) {
	formattest.Run(t, text.Code(), []formattest.Sample{
		{Name: "main.go", Data: []byte("package main\n\n// main says hello to the world.\nfunc main() {}\n"), Phrase: "says hello to the world"},
		{Name: "large.go", Data: repeat("package big\n\n", "// F%d adds one to the input.\nfunc F%[1]d(x int) int { return x + 1 }\n\n", "", big), Phrase: "func F3(x int)", Large: true},
	})
}

func TestData(t *testing.T) {
	for _, c := range []struct {
		f      *text.Format
		small  string
		phrase string
		large  []byte
	}{
		{text.JSON(), `{"name": "retrieve", "says": "every citation checks"}`, "every citation checks", repeat("[", `{"id": %d, "text": "a record of the list"}`, "]", big)},
		{text.YAML(), "name: retrieve\nsays: every citation checks\n", "every citation checks", repeat("", "- id: %d\n  text: a record of the list\n", "", big)},
		{text.TOML(), "name = \"retrieve\"\nsays = \"every citation checks\"\n", "every citation checks", repeat("list = [\n", "  \"a record of the list %d\",\n", "]\n", big)},
		{text.CSV(), "name,says\nretrieve,every citation checks\n", "every citation checks", repeat("id,text\n", "%d,a record of the list\n", "", big)},
	} {
		t.Run(c.f.Info().Name, func(t *testing.T) {
			formattest.Run(t, c.f, []formattest.Sample{
				{Name: "small", Data: []byte(c.small), Phrase: c.phrase},
				{Name: "large", Data: c.large, Phrase: "a record of the list", Large: true},
			})
		})
	}
}

func TestMarkdownSections(t *testing.T) {
	src := "# A\n\ntext a\n\n## B\n\ntext b\n\n# C\n\ntext c\n"
	txt, err := text.Markdown().Extract(context.Background(), strings.NewReader(src), int64(len(src)), format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"A": "# A\n\ntext a\n\n## B\n\ntext b\n\n", "B": "## B\n\ntext b\n\n", "C": "# C\n\ntext c\n"}
	if len(txt.Sections) != len(want) {
		t.Fatalf("got %d sections, want %d: %+v", len(txt.Sections), len(want), txt.Sections)
	}
	for _, s := range txt.Sections {
		if got := txt.Text[s.Start:s.End]; got != want[s.Title] {
			t.Errorf("section %s: got %q, want %q", s.Title, got, want[s.Title])
		}
	}
}

func TestDecode(t *testing.T) {
	t.Run("ErrUnsupported", func(t *testing.T) {
		_, _, err := text.Decode([]byte("a\x00b"))
		if err == nil || !strings.Contains(err.Error(), "not UTF-8 text") {
			t.Fatalf("got %v, want the not-text error", err)
		}
	})
	t.Run("UTF16", func(t *testing.T) {
		b, enc, err := text.Decode([]byte("\xfe\xff\x00o\x00k"))
		if err != nil || string(b) != "ok" || enc != "UTF-16BE" {
			t.Fatalf("got %q %q %v, want \"ok\" UTF-16BE", b, enc, err)
		}
	})
}

func FuzzExtract(f *testing.F) {
	formattest.Fuzz(f, text.Markdown(), []byte("# A\n\n## B\ntext\n"), []byte("\xfe\xff\x00#\x00 \x00A"), []byte("Title\n===\n```\n# no\n```\n"))
}
