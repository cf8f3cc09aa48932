package graph_test

import (
	"context"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/graph"
)

// TestIngestTargetWithoutASource: graph asks its Retriever and names no
// source; a URL no source of the engine reads is UNKNOWN_SOURCE with a hint
// to pass the text instead.
func TestIngestTargetWithoutASource(t *testing.T) {
	eng, err := engine.New(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tl := &graph.Tools{Retriever: eng}
	_, err = tl.Ingest(context.Background(), graph.IngestInput{DocID: "d1", Target: "http://127.0.0.1:1/page"})
	ae := retrieve.AsError(err)
	if err == nil || ae.Code != retrieve.CodeUnknownSource || !strings.Contains(ae.Hint, "--file") {
		t.Fatalf("Ingest = %v (hint %q), want UNKNOWN_SOURCE with a hint to pass --file", err, ae.Hint)
	}
	_, err = (&graph.Tools{}).Ingest(context.Background(), graph.IngestInput{DocID: "d1", Target: "notes.md"})
	if retrieve.AsError(err).Code != retrieve.CodeInvalidOperation {
		t.Fatalf("Ingest without a retriever = %v, want INVALID_OPERATION", err)
	}
}
