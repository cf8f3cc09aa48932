//go:build cgo

package testws

// Cgo is set in a cgo build (the tree-sitter languages parse).
const Cgo = true
