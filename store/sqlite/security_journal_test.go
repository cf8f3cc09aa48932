package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/store"
)

// TestSecurityPlantedJournals plants journal files as a repository or an
// archive could ship them under .retrieve/retrieve.db-pending/ and opens
// the store: every read returns within seconds, nothing planted becomes a
// ledger entry, good records are never dropped, and nothing that was not
// folded is deleted. Before: a link to /dev/zero killed `retrieve log` out
// of memory, a FIFO hung every reader, a forged record with a valid CRC
// became an entry, and a damaged record dropped every later one and the
// file.
func TestSecurityPlantedJournals(t *testing.T) {
	if !canLock {
		t.Skip("no flock on this platform: journals are not folded")
	}
	forgedKey := []byte("an attacker's key, not the store")
	type plant struct {
		name  string
		make  func(t *testing.T, p string, key []byte) (want []*store.Entry)
		aside string // the suffix the file is set aside under
	}
	write := func(t *testing.T, p string, b []byte, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(p, b, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	plants := []plant{
		{"ErrLinkToDevZero", func(t *testing.T, p string, _ []byte) []*store.Entry {
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
			return nil
		}, asideRefused},
		{"ErrFIFO", func(t *testing.T, p string, _ []byte) []*store.Entry {
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
			return nil
		}, asideRefused},
		{"ErrPublicMode", func(t *testing.T, p string, key []byte) []*store.Entry {
			write(t, p, encodeEntry(key, journalEntry("/etc/shadow")), 0o644)
			return nil
		}, asideRefused},
		{"ErrForgedRecord", func(t *testing.T, p string, key []byte) []*store.Entry {
			good := journalEntry("good.md")
			forged := journalEntry("/etc/shadow")
			forged.Result = []byte(`{"retrieved":{"data":"root:FORGED"}}`)
			write(t, p, append(encodeEntry(forgedKey, forged), encodeEntry(key, good)...), 0o600)
			return []*store.Entry{good}
		}, asideForged},
		{"ErrDamagedMidFile", func(t *testing.T, p string, key []byte) []*store.Entry {
			a, b, c := journalEntry("a.md"), journalEntry("b.md"), journalEntry("c.md")
			rb := encodeEntry(key, b)
			rb[20] ^= 0xff
			write(t, p, append(append(encodeEntry(key, a), rb...), encodeEntry(key, c)...), 0o600)
			return []*store.Entry{a, c}
		}, asideDamaged},
	}
	for _, pl := range plants {
		t.Run(pl.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "retrieve.db")
			key := storeKey(t, path)
			dir := path + "-pending"
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, "00000000000000000001-planted"+journalExt)
			want := pl.make(t, p, key)
			s, err := OpenStore(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			type got struct {
				es  []*store.Entry
				err error
			}
			done := make(chan got, 1)
			go func() {
				es, err := s.Entries(ctx, store.Filter{})
				done <- got{es, err}
			}()
			var g got
			select {
			case g = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("reading the ledger hung on the planted journal")
			}
			if g.err != nil {
				t.Fatalf("Entries: %v", g.err)
			}
			var targets []string
			for _, e := range g.es {
				targets = append(targets, e.Target)
				if e.Target == "/etc/shadow" {
					t.Errorf("a planted record became a ledger entry: %+v", e)
				}
			}
			if len(g.es) != len(want) {
				t.Errorf("entries %v, want %d good ones", targets, len(want))
			}
			for _, w := range want {
				if _, err := s.Entry(ctx, w.ID); err != nil {
					t.Errorf("the good record %s was dropped: %v", w.Target, err)
				}
			}
			if _, err := os.Lstat(p + "." + pl.aside); err != nil {
				t.Errorf("the planted file was not set aside as .%s: %v", pl.aside, err)
			}
			probs := strings.Join(s.JournalProblems(), "\n")
			if !strings.Contains(probs, pl.aside) {
				t.Errorf("JournalProblems = %q, want it to report the file as %s", probs, pl.aside)
			}
		})
	}
}

// TestSecurityJournalFilesPrivate: the journal files a server writes are
// private to its user (0600, in a 0700 directory).
func TestSecurityJournalFilesPrivate(t *testing.T) {
	if !canLock {
		t.Skip("no flock on this platform: the journal is off")
	}
	path := filepath.Join(t.TempDir(), "retrieve.db")
	s := openJournaled(t, path, time.Hour)
	if err := s.Append(context.Background(), journalEntry("a.md")); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(path + "-pending")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), journalExt) {
			continue
		}
		n++
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", e.Name(), fi.Mode().Perm())
		}
	}
	if n != 1 {
		t.Fatalf("%d journal files, want 1", n)
	}
	if fi, err := os.Stat(path + "-pending"); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the journal directory: %v %v, want 0700", fi.Mode().Perm(), err)
	}
}
