//go:build !unix

package sqlite

import (
	"errors"
	"os"
)

// canLock says that journal files can be locked: not here, so every append
// is committed (journal.go).
const canLock = false

func lockFile(*os.File, bool) error { return errors.ErrUnsupported }

// openJournal is never called without file locks (sync returns first).
func openJournal(p string) (*os.File, error) { return nil, errors.ErrUnsupported }

func journalFileOK(*os.File) string { return "journal files are not folded on this platform" }
