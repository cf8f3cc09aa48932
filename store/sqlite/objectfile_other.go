//go:build !linux

package sqlite

import "os"

// directFlag is 0 where direct I/O is not opened by a flag: snapshot
// files are written through the page cache.
const directFlag = 0

// writeAt writes bufs at off, one after the other.
func writeAt(f *os.File, bufs [][]byte, off int64) error {
	for _, b := range bufs {
		if _, err := f.WriteAt(b, off); err != nil {
			return err
		}
		off += int64(len(b))
	}
	return nil
}
