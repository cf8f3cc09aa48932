//go:build unix

package testws

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Special files a hostile repository or a hostile local process can put in
// a workspace: opening a FIFO for reading waits for a writer forever, a
// device never ends. Relative to the workspace root.
const (
	SpecialFIFO      = "special/pipe.md"   // a FIFO
	SpecialSocket    = "special/socket.md" // a Unix socket
	SpecialZeroLink  = "special/zero.md"   // -> /dev/zero
	SpecialZeroInDir = "special/dev/zero"  // special/dev -> /dev
	SpecialMemFIFO   = "memory/semantic/pipe.md"
)

// AddSpecialFiles adds the special files above to the workspace, and
// returns their names.
func (w *Workspace) AddSpecialFiles(t testing.TB) []string {
	t.Helper()
	p := func(name string) string {
		full := filepath.Join(w.Root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		return full
	}
	if err := syscall.Mkfifo(p(SpecialFIFO), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p(SpecialMemFIFO), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mknod(p(SpecialSocket), syscall.S_IFSOCK|0o644, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", p(SpecialZeroLink)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev", p("special/dev")); err != nil {
		t.Fatal(err)
	}
	return []string{SpecialFIFO, SpecialSocket, SpecialZeroLink, SpecialZeroInDir, SpecialMemFIFO}
}
