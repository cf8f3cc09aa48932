package retrieve_test

import (
	"testing"

	"github.com/retrieve-dev/retrieve"
)

func TestParseReference(t *testing.T) {
	tests := []struct {
		in   string
		want retrieve.Reference
	}{
		{"config/database.yml:1-15", retrieve.Reference{Scheme: "file", Path: "config/database.yml", Lines: "1-15"}},
		{"README.md", retrieve.Reference{Scheme: "file", Path: "README.md"}},
		{"a:b.txt", retrieve.Reference{Scheme: "file", Path: "a:b.txt"}},
		{"notes.md:1-5,20-30", retrieve.Reference{Scheme: "file", Path: "notes.md", Lines: "1-5,20-30"}},
		{"notes.md:10-", retrieve.Reference{Scheme: "file", Path: "notes.md", Lines: "10-"}},
		{"git:abc123:src/a.go:3-4", retrieve.Reference{Scheme: "git", Rev: "abc123", Path: "src/a.go", Lines: "3-4"}},
		{"memory:semantic/x.md", retrieve.Reference{Scheme: "memory", Path: "semantic/x.md"}},
		{"https://example.com/a:1-2", retrieve.Reference{Scheme: "web", Path: "https://example.com/a:1-2"}},
		{"sql:main/users?id=1", retrieve.Reference{Scheme: "sql", Path: "main/users?id=1"}},
		{"doc:d1#d1_chunk_000", retrieve.Reference{Scheme: "doc", Path: "d1#d1_chunk_000"}},
		{"s3://bucket/key:1-2", retrieve.Reference{Scheme: "s3", Path: "s3://bucket/key:1-2"}},
		{"mem://notes/a", retrieve.Reference{Scheme: "mem", Path: "mem://notes/a"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := retrieve.ParseReference(tt.in)
			if got != tt.want {
				t.Fatalf("ParseReference(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
			if s := got.String(); s != tt.in {
				t.Fatalf("String() = %q, want %q", s, tt.in)
			}
		})
	}
}

func FuzzReferenceRoundTrip(f *testing.F) {
	for _, s := range []string{"a.md:1-3", "git:HEAD:x:1-", "memory:e/x.md:2-2", "https://h/x", "sql:c#ab", "a:b:c", ":1-2", "x:1-2,4-5", "s3://b/k:1-2", "sql:sql://x", "mem://a", "git://h/r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := retrieve.ParseReference(s)
		back := retrieve.ParseReference(r.String())
		if back != r {
			t.Fatalf("round trip of %q: parse(format(%+v)) = %+v", s, r, back)
		}
	})
}
