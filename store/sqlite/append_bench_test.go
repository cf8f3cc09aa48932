package sqlite_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// smallReadEntry is a recorded small read's entry (about 1 KB).
func smallReadEntry() *store.Entry {
	return &store.Entry{ID: retrieve.NewID(), Time: time.Now(), Op: "get", Target: "docs/guide.md", Source: "file",
		Reference: "docs/guide.md:10-20", Hash: "sha256:" + string(make([]byte, 0)) + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		SourceHash: "sha256:fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210", Snapshot: "sha256:fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210",
		Status: store.StatusOK, Duration: time.Millisecond, Request: json.RawMessage(`{"target":"docs/guide.md","constraints":{"lines":"10-20"}}`),
		Result:         json.RawMessage(`{"retrieved":{"target":"docs/guide.md","format":"markdown","data":null},"citation":{"reference":"docs/guide.md:10-20","hash":"sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef","version":"git:0123456789abcdef0123456789abcdef01234567"},"provenance":{"source_type":"file","freshness":"fresh"},"assumptions":[],"confidence":1}`),
		DataInSnapshot: true}
}

// BenchmarkAppendOne appends one entry per transaction, as a CLI command
// does (no journal): CPU per append and WAL frames (pages) per commit.
func BenchmarkAppendOne(b *testing.B) {
	ctx := context.Background()
	s, err := sqlite.OpenStore(ctx, filepath.Join(b.TempDir(), "retrieve.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for range 200 { // a store that has entries
		if err := s.Append(ctx, smallReadEntry()); err != nil {
			b.Fatal(err)
		}
	}
	db := s.SQL()
	var busy, frames, done int
	if err := db.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &done); err != nil {
		b.Fatal(err)
	}
	var ru0, ru1 syscall.Rusage
	var pages, commits int
	var excluded int64
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	for b.Loop() {
		if err := s.Append(ctx, smallReadEntry()); err != nil {
			b.Fatal(err)
		}
		if commits++; commits%50 == 0 { // under the autocheckpoint's 1,000 frames
			b.StopTimer()
			var c0, c1 syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &c0)
			if err := db.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &done); err != nil {
				b.Fatal(err)
			}
			pages += frames
			if err := db.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &done); err != nil {
				b.Fatal(err)
			}
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &c1)
			excluded += c1.Utime.Nano() + c1.Stime.Nano() - c0.Utime.Nano() - c0.Stime.Nano()
			b.StartTimer()
		}
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano() - excluded
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	if commits >= 50 {
		b.ReportMetric(float64(pages)/float64(commits/50*50), "pages/commit")
	}
}
