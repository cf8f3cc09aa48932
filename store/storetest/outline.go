package storetest

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/store"
)

// testOutlineCache: an outline put under a key is read back by key, from
// the same store and from a second one on the same database (the CLI and
// serve share it); an absent key is no error; a second put of a key keeps
// the first data.
func testOutlineCache(t *testing.T, open Opener) {
	s := open(t)
	c, ok := s.(store.OutlineCache)
	if !ok {
		t.Skipf("%T keeps no outlines", s)
	}
	ctx := context.Background()
	key := "python/" + hashOf([]byte(t.Name())) + "/1"
	if _, ok, err := c.CachedOutline(ctx, key); err != nil || ok {
		t.Fatalf("CachedOutline(absent) = ok %v, err %v; want false, nil", ok, err)
	}
	want := []byte(`{"symbols":[{"name":"f"}]}`)
	if err := c.PutOutline(ctx, key, want); err != nil {
		t.Fatal(err)
	}
	if err := c.PutOutline(ctx, key, []byte(`{}`)); err != nil {
		t.Fatalf("PutOutline of a stored key: %v", err)
	}
	got, ok, err := c.CachedOutline(ctx, key)
	if err != nil || !ok || !bytes.Equal(got, want) {
		t.Fatalf("CachedOutline = %q, %v, %v; want %q", got, ok, err, want)
	}
	if _, ok, err := c.CachedOutline(ctx, key+"x"); err != nil || ok {
		t.Fatalf("CachedOutline(another key) = ok %v, err %v; want false, nil", ok, err)
	}
	if n, err := c.DeleteOutlinesBefore(ctx, time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("DeleteOutlinesBefore(an hour ago) = %d, %v; want 0 (the outline is new)", n, err)
	}
	if n, err := c.DeleteOutlinesBefore(ctx, time.Now().Add(time.Minute)); err != nil || n != 1 {
		t.Fatalf("DeleteOutlinesBefore(now) = %d, %v; want 1", n, err)
	}
	if _, ok, err := c.CachedOutline(ctx, key); err != nil || ok {
		t.Fatalf("CachedOutline after the gc = ok %v, err %v; want false, nil", ok, err)
	}
}
