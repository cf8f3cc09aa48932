package stores

// SetBatch sets the copy batch size for a test and returns the undo.
func SetBatch(n int) func() {
	old := batch
	batch = n
	return func() { batch = old }
}
