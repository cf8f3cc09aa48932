//go:build unix

package wiki

import (
	"os"
	"syscall"
)

// lock takes an exclusive advisory lock on wiki/.lock so that concurrent
// writers (goroutines or processes) do not lose index.md rows.
func (w *Wiki) lock() (func(), error) {
	f, err := w.openFile(".lock", os.O_CREATE|os.O_RDWR)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
