package mcpserver

import (
	"context"
	"io"
	"testing"
	"time"
)

// A string held for a response that is never written (a dropped call) is
// let go once its call is over: it does not pin the data for the life of
// the server.
func TestHeldStringReleasedAfterItsCall(t *testing.T) {
	old := heldAfter
	heldAfter = 10 * time.Millisecond
	defer func() { heldAfter = old }()
	s := NewStreamer(io.Discard)
	ctx, cancel := context.WithCancel(context.Background())
	toks := s.hold(ctx, held{parts: []string{"a large string"}}, held{parts: []string{"its second half"}})
	if s.count.Load() != 2 {
		t.Fatalf("held %d strings, want 2", s.count.Load())
	}
	time.Sleep(30 * time.Millisecond)
	if s.count.Load() != 2 {
		t.Fatal("the string was let go while its call was running")
	}
	cancel()
	for deadline := time.Now().Add(5 * time.Second); s.count.Load() != 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the string is still held after its call ended")
		}
	}
	for _, tok := range toks {
		if _, ok := s.take(tok); ok {
			t.Fatal("the placeholder still resolves")
		}
	}
}
