package graph_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve/graph"
)

func FuzzParseExtraction(f *testing.F) {
	f.Add([]byte(`{"entities":[{"name":"memory leak","type":"bug","supporting_text":"a leak"}],"relations":[{"source":"memory leak","target":"x","type":"causes","confidence":0.9}]}`))
	f.Add([]byte(`{"entities":[{"name":"","type":"bug"}]}`))
	f.Add([]byte(`{"relations":[{"source":"a","target":"b","type":"t","confidence":1e999}]}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"entities":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := graph.ParseExtraction(data)
		if err != nil {
			return
		}
		doc := &graph.Document{ID: "d", Content: "some text", Chunks: graph.ChunkText("d", "some text")}
		out, b, err := graph.BuildBatch(doc, x, true)
		if err != nil {
			t.Fatalf("allow-unverified build failed: %v", err)
		}
		for _, e := range b.Edges {
			if e.Confidence < graph.MinConfidence && !e.Unverified {
				t.Fatalf("edge below min confidence kept: %+v", e)
			}
			if e.Unverified && e.Confidence > graph.UnverifiedCap {
				t.Fatalf("unverified edge not capped: %+v", e)
			}
		}
		if out.ChunkCount != 1 {
			t.Fatalf("chunk count %d", out.ChunkCount)
		}
	})
}

func FuzzParseGraphFile(f *testing.F) {
	f.Add([]byte(`{"nodes":{"a":{"name":"x","type":"t","source_document":null,"source_chunks":[]}},"edges":[{"source":"a","target":"a","type":"t","confidence":1,"source_document":null,"supporting_text":null,"chunk_id":null}]}`))
	f.Add([]byte(`{"nodes":{"a":null},"edges":[null]}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, data []byte) {
		nodes, edges, err := graph.ParseGraphFile(data)
		if err != nil {
			return
		}
		for id, n := range nodes {
			if n == nil || n.ID != id {
				t.Fatalf("node %q = %+v", id, n)
			}
		}
		for _, e := range edges {
			if e == nil {
				t.Fatal("nil edge")
			}
		}
	})
}

func FuzzChunkText(f *testing.F) {
	f.Add("hello world")
	f.Add(strings.Repeat("é", 1201))
	f.Add(strings.Repeat(" ", 900) + "x")
	f.Fuzz(func(t *testing.T, s string) {
		chunks := graph.ChunkText("d", s)
		for i, c := range chunks {
			if c.Index != i || c.ChunkID != graph.ChunkID("d", i) || strings.TrimSpace(c.Text) == "" || utf8.RuneCountInString(c.Text) > graph.ChunkSize {
				t.Fatalf("chunk %d = %+v", i, c)
			}
			if utf8.ValidString(s) && !strings.Contains(s, c.Text) {
				t.Fatalf("chunk %d not in the text", i)
			}
		}
	})
}

func TestChunkText(t *testing.T) {
	text := strings.Repeat("a", 1000)
	chunks := graph.ChunkText("doc_001", text)
	// windows at 0, 400, 800 (500 wide, step 400)
	if len(chunks) != 3 || len(chunks[0].Text) != 500 || len(chunks[2].Text) != 200 || chunks[2].ChunkID != "doc_001_chunk_002" {
		t.Fatalf("chunks = %d", len(chunks))
	}
	if n := len(graph.ChunkText("d", strings.Repeat("b", 500))); n != 1 {
		t.Errorf("500 characters = %d chunks, want 1", n)
	}
	if n := len(graph.ChunkText("d", strings.Repeat("b", 501))); n != 2 {
		t.Errorf("501 characters = %d chunks, want 2", n)
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{"Bug": "issue", "DEFECT": "issue", "crash": "issue", "web_service": "web service", "Module": "component"} {
		if got := graph.NormalizeType(in); got != want {
			t.Errorf("NormalizeType(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"triggers": "causes", "Leads-To": "causes", "results_in": "causes", "requires": "depends on", "needs": "depends on", "frobs": "frobs"} {
		if got := graph.NormalizeRelation(in); got != want {
			t.Errorf("NormalizeRelation(%q) = %q, want %q", in, got, want)
		}
	}
	if got := strings.Join(graph.Tokenize("Why does the System crash? A x-ray"), ","); got != "system,crash,ray" {
		t.Errorf("Tokenize = %s", got)
	}
	if !graph.ContainsEvidence("A  Memory\nleak causes", "memory leak CAUSES") || graph.ContainsEvidence("abc", "  ") {
		t.Error("ContainsEvidence")
	}
}
