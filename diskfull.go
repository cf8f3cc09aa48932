package retrieve

import (
	"errors"
	"strings"
	"syscall"
)

// IsDiskFull reports whether err says that a write found no space: ENOSPC
// from the operating system, SQLITE_FULL ("database or disk is full") or
// PostgreSQL's disk_full (SQLSTATE 53100).
func IsDiskFull(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, syscall.ENOSPC) {
		return true
	}
	m := strings.ToLower(err.Error())
	return strings.Contains(m, "database or disk is full") || strings.Contains(m, "no space left on device") ||
		strings.Contains(m, "sqlstate 53100") || strings.Contains(m, "could not extend file")
}

// DiskFullError is the error of a write that found the disk full: a
// WRITE_FAILED that says so, with a hint that keeps the user from
// mistaking a full disk for a damaged store.
func DiskFullError(where string, err error) *Error {
	return Errorf(CodeWriteFailed, "cannot write %s: the disk is full", where).
		WithHint("free space on the disk that holds it (retrieve gc drops old ledger entries and unreferenced snapshots); nothing is damaged: do not move or delete the store").
		WithErr(err)
}
