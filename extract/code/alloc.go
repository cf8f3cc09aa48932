//go:build cgo

package code

/*
#include <stddef.h>
void ts_set_allocator(void *(*)(size_t), void *(*)(size_t, size_t), void *(*)(void *, size_t), void (*)(void *));
*/
import "C"

// The Go bindings route every allocation of tree-sitter through a call
// back into Go (go_malloc), which then calls C malloc: a cgo round trip per
// node. Their default functions are plain malloc, calloc, realloc and free,
// so tree-sitter's own defaults (NULL) allocate from the same heap, and
// memory allocated before this call is freed correctly after it. This
// halves the time of a parse. Nothing in this program sets another
// allocator.
func init() { C.ts_set_allocator(nil, nil, nil, nil) }
