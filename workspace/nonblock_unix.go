//go:build unix

package workspace

import (
	"errors"
	"syscall"
)

// openNonBlock makes opening a FIFO return at once instead of waiting for
// a writer; it changes nothing for regular files and directories.
const openNonBlock = syscall.O_NONBLOCK

// openNoFollow refuses a final symlink (ELOOP).
const openNoFollow = syscall.O_NOFOLLOW

func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }
