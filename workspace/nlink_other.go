//go:build !unix

package workspace

import "io/fs"

// nlink is not known here.
func nlink(fs.FileInfo) uint64 { return 1 }
