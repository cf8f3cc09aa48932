//go:build cgo

package code

/*
#include <stdlib.h>

// ts_set_allocator is tree-sitter's (lib.c of go-tree-sitter, linked in).
extern void ts_set_allocator(void *(*)(size_t), void *(*)(size_t, size_t), void *(*)(void *, size_t), void (*)(void *));

static void retrieve_ts_use_libc(void) { ts_set_allocator(malloc, calloc, realloc, free); }
*/
import "C"

// useLibcAllocator points tree-sitter's allocations at the C library's
// malloc. go-tree-sitter routes each of them through a Go callback (so a
// program can plug in its own), and a call from C into Go costs more than
// the allocation itself.
func useLibcAllocator() { C.retrieve_ts_use_libc() }
