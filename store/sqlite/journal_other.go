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
