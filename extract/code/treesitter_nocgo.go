//go:build !cgo

package code

// CgoEnabled reports whether this build parses the tree-sitter languages.
const CgoEnabled = false

// parseTreeSitter answers every tree-sitter language with an error: this
// build has no cgo.
func parseTreeSitter(lang string, _ []byte) (*Outline, error) {
	return nil, &UnsupportedError{Language: lang, NeedsCgo: true}
}
