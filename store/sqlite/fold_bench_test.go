package sqlite

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
)

// smallReadEntry is a ledger entry as `retrieve serve` records a small
// read of one of 1000 files (bench/peers.sh's HTTP rows): its target,
// reference and snapshot repeat across entries, its id and time grow.
func smallReadEntry(i int, t time.Time) *store.Entry {
	f := fmt.Sprintf("f%d.txt", i%1000)
	sum := sha256.Sum256([]byte(f))
	src := "sha256:" + hex.EncodeToString(sum[:])
	sum = sha256.Sum256([]byte(f + ":1-20"))
	hash := "sha256:" + hex.EncodeToString(sum[:])
	id := retrieve.NewID()
	ts := t.UTC().Format(timeFormat)
	return &store.Entry{ID: id, Time: t, Op: "get", Target: f, Source: "file", Reference: f + ":1-20", Hash: hash,
		SourceHash: src, Snapshot: src, Status: store.StatusOK, Duration: time.Millisecond, DataInSnapshot: true,
		Request: []byte(`{"target":"` + f + `","constraints":{"lines":"1-20"}}`),
		Result: []byte(`{"retrieved":{"target":"` + f + `","source":"file:` + f + `","timestamp":"` + ts + `","data":null,"format":"text","complete":false},` +
			`"citation":{"reference":"` + f + `:1-20","version":"git:fd927d9f2cf610723679dab59a70cf3c0ed0b775","hash":"` + hash + `","source_hash":"` + src + `","authority":"high"},` +
			`"provenance":{"source_type":"file","last_modified":"2026-11-26T13:49:01.304932689Z","freshness":"fresh","reliability":"Version-controlled file, identical to the committed revision","retrieved_from":"live","age_seconds":0,"metadata":{"document_facts":{"spans":true}}},` +
			`"extraction":{"applied_filters":{"lines":"1-20"},"original_size":2271,"returned_size":1131,"truncated":false,"next":null,"budget":{"message_bytes":40000,"data_bytes":36672,"cut":false}},` +
			`"confidence":1,"evidence_anchors":["` + f + `:1-20"],"assumptions":[],"retrieval_id":"` + id + `","error":null}`)}
}

// BenchmarkFold is the background fold of `retrieve serve`'s journal under
// a busy server: one transaction of 2000 small-read entries (about a second
// of recorded reads) into a ledger that holds 60,000 already. It reports
// the time of one entry (ns/entry): the part of a recorded read that the
// ledger's table, indexes and leaves cost (docs/ARCHITECTURE.md,
// "Performance of the small read"). The store has no index on snapshot
// since ledger migration 6 (only gc reads that column): measured before,
// the index was 20–28% of this benchmark's CPU.
func BenchmarkFold(b *testing.B) {
	s, err := OpenStore(context.Background(), filepath.Join(b.TempDir(), "retrieve.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const batch = 2000
	ctx := context.Background()
	t0 := time.Now().Add(-time.Hour)
	n := 0
	fold := func() {
		recs := make([]jrec, batch)
		for i := range recs {
			recs[i].e = smallReadEntry(n, t0.Add(time.Duration(n)*time.Millisecond))
			n++
		}
		if k, err := s.insertRecords(ctx, recs); err != nil || k != batch {
			b.Fatal(k, err)
		}
	}
	for range 30 {
		fold()
	}
	start := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		fold()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/entry")
	b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N*batch), "cpu-ns/entry")
}
