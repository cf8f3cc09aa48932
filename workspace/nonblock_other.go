//go:build !unix

package workspace

// openNonBlock is 0 where there are no FIFOs to open.
const openNonBlock = 0

// openNoFollow is 0 here: links are resolved as usual.
const openNoFollow = 0

func isLoop(error) bool { return false }
