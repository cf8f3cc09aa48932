//go:build !linux

package file

import "os"

// stampOf is the stamp of the file at p (exists is false when it cannot be
// read).
func stampOf(p string) stamp {
	fi, err := os.Stat(p)
	if err != nil {
		return stamp{}
	}
	return stampInfo(fi)
}
