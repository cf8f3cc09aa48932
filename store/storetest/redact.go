package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
)

// URL secrets of RedactionMigration's rows.
const (
	secretPassword = "pw-S3CRET-migr-1"
	secretToken    = "tok-S3CRET-migr-2"
	dataToken      = "in-the-data-S3CRET-3" // the source's content: kept
)

// RedactionMigration checks the migration that redacts URL credentials in
// ledger rows written before redaction existed. stale appends rows as an
// old retrieve did (with the secrets) and rolls the store back to before
// the redaction migration; reopen migrates it again and returns the store.
func RedactionMigration(t *testing.T, stale func(t *testing.T, entries []*store.Entry), reopen func(t *testing.T) store.Store) {
	t.Helper()
	target := "https://alice:" + secretPassword + "@example.invalid/page?token=" + secretToken + "&x=1"
	ref := "https://example.invalid/page?token=" + secretToken + "&x=1"
	entries := []*store.Entry{{
		ID: retrieve.NewID(), Time: time.Now().UTC(), Op: "get", Target: target, Source: "web", Reference: ref,
		Hash: "sha256:00", SourceHash: "sha256:00", Status: store.StatusOK,
		Request: []byte(`{"target":"` + target + `","constraints":{}}`),
		Result: []byte(`{"retrieved":{"target":"` + target + `","source":"web:` + ref + `","data":"see https://bob:x@example.invalid/?token=` + dataToken + `"},` +
			`"citation":{"reference":"` + ref + `"},"evidence_anchors":["url:` + ref + `"],"assumptions":["fetched ` + target + `"],"confidence":1,"n":12345678901234567890}`),
	}, {
		ID: retrieve.NewID(), Time: time.Now().UTC(), Op: "get", Target: "README.md", Source: "file", Reference: "README.md:1-2",
		Status: store.StatusOK, Request: []byte(`{"target":"README.md"}`), Result: []byte(`{"retrieved":{"data":"x"}}`),
	}}
	stale(t, entries)
	s := reopen(t)
	got, err := s.Entry(context.Background(), entries[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{"target": got.Target, "reference": got.Reference, "request": string(got.Request), "result": string(got.Result)} {
		if strings.Contains(v, secretPassword) || strings.Contains(v, secretToken) {
			t.Errorf("the migrated %s still holds a secret: %s", name, v)
		}
	}
	if got.Target != "https://example.invalid/page?token=REDACTED&x=1" || got.Reference != "https://example.invalid/page?token=REDACTED&x=1" {
		t.Errorf("target %q, reference %q", got.Target, got.Reference)
	}
	if !strings.Contains(string(got.Result), dataToken) || !strings.Contains(string(got.Result), "12345678901234567890") {
		t.Errorf("retrieved.data or a number changed: %s", got.Result)
	}
	other, err := s.Entry(context.Background(), entries[1].ID)
	if err != nil || string(other.Result) != string(entries[1].Result) || string(other.Request) != string(entries[1].Request) {
		t.Errorf("a row without URLs changed: %+v %v", other, err)
	}
}
