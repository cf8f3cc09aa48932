//go:build !unix

package wiki

import "sync"

var wikiMu sync.Mutex

// lock serialises writers within the process (no advisory file locks here).
func (w *Wiki) lock() (func(), error) {
	wikiMu.Lock()
	return wikiMu.Unlock, nil
}
