package sqlite

import (
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// directFlag opens a snapshot file for direct I/O (objectfile.go).
const directFlag = syscall.O_DIRECT

// writeAt writes bufs at off in one system call (pwritev), and again from
// where a short write stopped.
func writeAt(f *os.File, bufs [][]byte, off int64) error {
	fd := int(f.Fd())
	bufs = append([][]byte(nil), bufs...) // the caller's stay as they are
	for len(bufs) > 0 {
		n, err := unix.Pwritev(fd, bufs, off)
		if err != nil {
			return err
		}
		if n == 0 {
			return io.ErrShortWrite
		}
		off += int64(n)
		for n > 0 && len(bufs) > 0 {
			if n >= len(bufs[0]) {
				n -= len(bufs[0])
				bufs = bufs[1:]
				continue
			}
			bufs[0] = bufs[0][n:]
			n = 0
		}
	}
	return nil
}
