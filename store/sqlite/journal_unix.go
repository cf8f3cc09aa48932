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

// openJournal opens a journal file to fold it: never through a link, and
// without blocking on a FIFO.
func openJournal(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// journalFileOK says why an opened journal file is not one this user's
// process wrote ("" when it is): a regular file, owned by this user,
// private (0600), at most maxJournalFile bytes.
func journalFileOK(f *os.File) string {
	fi, err := f.Stat()
	if err != nil {
		return err.Error()
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.Mode().IsRegular():
		return "not a regular file: " + fi.Mode().Type().String()
	case !ok || int(st.Uid) != os.Getuid():
		return "not owned by this user"
	case fi.Mode().Perm()&0o077 != 0:
		return "readable or writable by others (" + fi.Mode().Perm().String() + "); journal files are 0600"
	case fi.Size() > maxJournalFile:
		return "too large"
	}
	return ""
}
