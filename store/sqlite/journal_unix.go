//go:build unix

package sqlite

import (
	"os"
	"syscall"
)

// canLock says that journal files can be locked (journal.go).
const canLock = true

// lockFile takes an exclusive flock(2) on f, without waiting when try is
// set. The lock goes with the open file, and with the process when it dies.
func lockFile(f *os.File, try bool) error {
	how := syscall.LOCK_EX
	if try {
		how |= syscall.LOCK_NB
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}
