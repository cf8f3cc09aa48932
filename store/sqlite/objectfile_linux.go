package sqlite

import "syscall"

// directFlag opens a snapshot file for direct I/O (objectfile.go).
const directFlag = syscall.O_DIRECT
