//go:build !linux && !darwin

package file

import "os"

// statID gives no identity where the platform's Stat does not carry an
// inode and a change time: every retrieval hashes the whole file.
func statID(os.FileInfo) (fileID, bool) { return fileID{}, false }

// statData gives no stat data: the file's content is compared with the
// index entry instead.
func statData(os.FileInfo) (gitStat, bool) { return gitStat{}, false }
