//go:build !cgo

package code

// treeSitterRuntime is unset in a build without cgo: the tree-sitter
// runtime and grammars are C, so only Go (go/parser) is outlined here.
const treeSitterRuntime = false

// parseTreeSitter fails: this build has no C parser runtime.
func parseTreeSitter(lang string, _ []byte) (*Outline, error) {
	return nil, &UnsupportedError{Language: lang, NoRuntime: true}
}
