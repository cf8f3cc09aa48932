package jsonl_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/format/formattest"
	"github.com/retrieve-dev/retrieve/format/jsonl"
)

func TestFormat(t *testing.T) {
	var large strings.Builder
	for i := 0; large.Len() < 2<<20; i++ {
		fmt.Fprintf(&large, `{"id": %d, "text": "a record of the log, padded with words to be about three hundred bytes long so that the generated sample stays under the part limit of ten thousand records while it passes two mebibytes, which is the point of it: bounded memory and nothing else"}`+"\n", i)
	}
	formattest.Run(t, jsonl.New(), []formattest.Sample{
		{Name: "events.jsonl", Data: []byte("{\"event\": \"start\"}\n\n{\"event\": \"the citation was checked\"}\n[1, 2]\n"), Phrase: "the citation was checked"},
		{Name: "no-final-newline.ndjson", Data: []byte(`{"a": "first record"}` + "\n" + `{"b": "second record"}`), Phrase: "second record"},
		{Name: "large.jsonl", Data: []byte(large.String()), Phrase: `{"id": 7,`, Large: true},
	})
}

func FuzzExtract(f *testing.F) {
	formattest.Fuzz(f, jsonl.New(), []byte("{}\n[1]\n\n\"x\"\n"), []byte("{\"a\":\n"), []byte("\xff\xfe{\x00}\x00"))
}
