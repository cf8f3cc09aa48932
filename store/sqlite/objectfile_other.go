//go:build !linux

package sqlite

// directFlag is 0 where direct I/O is not opened by a flag: snapshot
// files are written through the page cache.
const directFlag = 0
