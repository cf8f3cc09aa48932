package retrieve

import (
	"github.com/google/uuid"
)

// NewID returns a new ledger id: a UUIDv7, unique and sortable by time.
func NewID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}
