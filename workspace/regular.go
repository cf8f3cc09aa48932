package workspace

import (
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/retrieve-dev/retrieve/policy"
)

// OpenRegular opens a file that is not a workspace file (retrieve's own
// state under .retrieve/, the configuration, a host's transcript, a file
// named on the command line) for reading: without blocking on a FIFO, and
// refused with policy.ErrNotRegular unless it is a regular file. With
// noFollow, a final symlink is refused too (for files only retrieve
// writes, such as session journals). It is the one way to open such a
// file by name (issue #32: a FIFO hung every reader).
func OpenRegular(name string, noFollow bool) (*os.File, fs.FileInfo, error) {
	flag := os.O_RDONLY | openNonBlock
	if noFollow {
		flag |= openNoFollow
	}
	f, err := os.OpenFile(name, flag, 0)
	if err != nil {
		if noFollow && isLoop(err) {
			return nil, nil, fmt.Errorf("%w: %s is a symbolic link", policy.ErrNotRegular, name)
		}
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%w: %s is a %s", policy.ErrNotRegular, name, kindOf(fi.Mode()))
	}
	return f, fi, nil
}

// ReadRegular reads a whole file opened with OpenRegular, refusing one
// larger than max bytes with policy.ErrTooLarge (a 200 MB configuration file must
// not cost gigabytes).
func ReadRegular(name string, max int64, noFollow bool) ([]byte, error) {
	f, fi, err := OpenRegular(name, noFollow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, fmt.Errorf("%w: %s is %d bytes, more than %d", policy.ErrTooLarge, name, fi.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = fmt.Errorf("%w: %s grew past %d bytes while it was read", policy.ErrTooLarge, name, max)
	}
	return b, err
}
