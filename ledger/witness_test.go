package ledger_test

import (
	"errors"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/internal/tsatest"
	"github.com/retrieve-dev/retrieve/ledger"
)

func TestTimestampRoundTrip(t *testing.T) {
	tsa := tsatest.New(t)
	note := []byte("retrieve-ledger\n4\nAAAA\ntime 2026-01-01T00:00:00Z\n\n— sig\n")
	req, err := ledger.TimestampRequest(note)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tsa.Reply(req)
	if err != nil {
		t.Fatal(err)
	}
	w, err := ledger.CheckTimestamp(resp, note)
	if err != nil {
		t.Fatal(err)
	}
	if w.TSA != "CN=loopback test TSA" || time.Since(w.Time) > time.Minute {
		t.Errorf("witness %+v", w)
	}
	// The token covers the note, not other bytes.
	if _, err := ledger.CheckTimestamp(resp, append(note, 'x')); !errors.Is(err, ledger.ErrBadWitness) {
		t.Errorf("another note: %v, want ErrBadWitness", err)
	}
	// A flipped byte in the signed part breaks the signature or the parse.
	bad := append([]byte{}, resp...)
	bad[len(bad)-40] ^= 0xff
	if _, err := ledger.CheckTimestamp(bad, note); !errors.Is(err, ledger.ErrBadWitness) {
		t.Errorf("altered token: %v, want ErrBadWitness", err)
	}
}

// FuzzCheckTimestamp: a TSA's answer is untrusted input: never a panic,
// and nothing but a valid token over the note is accepted.
func FuzzCheckTimestamp(f *testing.F) {
	tsa := tsatest.New(f)
	note := []byte("a checkpoint\n")
	req, err := ledger.TimestampRequest(note)
	if err != nil {
		f.Fatal(err)
	}
	valid, err := tsa.Reply(req)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add([]byte{})
	f.Add([]byte{0x30, 0x03, 0x02, 0x01, 0x02})
	f.Add([]byte("<html>not a TSA</html>"))
	f.Fuzz(func(t *testing.T, b []byte) {
		w, err := ledger.CheckTimestamp(b, note)
		if err == nil && w == nil {
			t.Fatal("no error and no witness")
		}
		if err != nil && !errors.Is(err, ledger.ErrBadWitness) {
			t.Fatalf("untyped error %v", err)
		}
	})
}
