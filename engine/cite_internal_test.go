package engine

import (
	"reflect"
	"testing"

	"github.com/retrieve-dev/retrieve"

	"github.com/retrieve-dev/retrieve/extract"
)

func TestReferences(t *testing.T) {
	tests := []struct {
		name    string
		doc     retrieve.Document
		out     outcome
		ref     string
		anchors []string
	}{
		{"SourceChoseReference", retrieve.Document{Locator: "a.md", Spans: true},
			outcome{reference: "a.md:3-4", anchors: []string{"a.md:3-4"}, spans: []extract.Range{{Start: 1, End: 9}}},
			"a.md:3-4", []string{"a.md:3-4"}},
		{"SourceChoseReferenceNoAnchors", retrieve.Document{Locator: "sql:db/t"}, outcome{reference: "sql:db/t?id=1"},
			"sql:db/t?id=1", []string{}},
		{"LineSpans", retrieve.Document{Locator: "a.md", Spans: true},
			outcome{spans: []extract.Range{{Start: 1, End: 2}, {Start: 5, End: 5}}, dataBytes: []byte("x")},
			"a.md:1-2,5-5", []string{"a.md:1-2", "a.md:5-5"}},
		{"ByteSpans", retrieve.Document{Locator: "b.bin", Spans: true},
			outcome{spans: []extract.Range{{Start: 0, End: 15}}, byteSpans: true, dataBytes: []byte("x")},
			"b.bin#bytes=0-15", []string{"b.bin#bytes=0-15"}},
		{"ByteSpansSeveral", retrieve.Document{Locator: "a.md", Spans: true},
			outcome{spans: []extract.Range{{Start: 0, End: 3}, {Start: 8, End: 9}}, byteSpans: true, dataBytes: []byte("x")},
			"a.md#bytes=0-3,8-9", []string{"a.md#bytes=0-3", "a.md#bytes=8-9"}},
		// The whole content as bytes (--format binary) is the path.
		{"ByteSpansComplete", retrieve.Document{Locator: "b.bin", Spans: true},
			outcome{spans: []extract.Range{{Start: 0, End: 15}}, byteSpans: true, complete: true, dataBytes: []byte("x")},
			"b.bin", []string{"b.bin#bytes=0-15"}},
		// A form the fragment is not taken from keeps the locator.
		{"ByteSpansOtherScheme", retrieve.Document{Locator: "memory:n/a.md", Spans: true},
			outcome{spans: []extract.Range{{Start: 0, End: 15}}, byteSpans: true, dataBytes: []byte("x")},
			"memory:n/a.md", []string{"memory:n/a.md#bytes=0-15"}},
		{"NoSpansWholeDocument", retrieve.Document{Locator: "git:abc:a.md"}, outcome{dataBytes: []byte("x")},
			"git:abc:a.md", []string{"git:abc:a.md"}},
		{"NoSpansNoData", retrieve.Document{Locator: "a.md", Spans: true}, outcome{},
			"a.md", []string{}},
		{"StructuredAnchors", retrieve.Document{Locator: "graph:node/x", Spans: true},
			outcome{anchors: []string{"graph:node/x"}, spans: []extract.Range{{Start: 1, End: 1}}},
			"graph:node/x:1-1", []string{"graph:node/x:1-1"}},
		{"WebSpanTextFragment", retrieve.Document{Locator: "http://127.0.0.1/p", TextFragments: true},
			outcome{spans: []extract.Range{{Start: 3, End: 3}}, dataBytes: []byte("## Install it\n")},
			"http://127.0.0.1/p", []string{"http://127.0.0.1/p#:~:text=Install%20it"}},
		// The document's fact decides, not its scheme.
		{"TextFragmentsOfAnyScheme", retrieve.Document{Locator: "toy:page", TextFragments: true},
			outcome{spans: []extract.Range{{Start: 3, End: 3}}, dataBytes: []byte("## Install it\n")},
			"toy:page", []string{"toy:page#:~:text=Install%20it"}},
		{"URLWithoutTextFragments", retrieve.Document{Locator: "http://127.0.0.1/p"},
			outcome{spans: []extract.Range{{Start: 3, End: 3}}, dataBytes: []byte("## Install it\n")},
			"http://127.0.0.1/p", []string{"http://127.0.0.1/p"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref, anchors := references(&tt.doc, &tt.out)
			if ref != tt.ref || !reflect.DeepEqual(anchors, tt.anchors) {
				t.Errorf("references = %q %q, want %q %q", ref, anchors, tt.ref, tt.anchors)
			}
		})
	}
}
