// Package sample is a fixture for the Go outline.
package sample

import "fmt"

// MaxItems bounds a Store.
const MaxItems = 100

// Errors of the store.
var (
	// ErrFull says the store is full.
	ErrFull = fmt.Errorf("full")
	ErrGone = fmt.Errorf("gone")
)

// Store keeps items.
//
// It is not safe for concurrent use.
type Store[K comparable, V any] struct {
	items map[K]V
}

// Saver saves.
type Saver interface {
	// Save saves.
	Save() error
	fmt.Stringer
}

type (
	// ID identifies an item.
	ID string
	// Kind is an item kind.
	Kind int
)

// NewStore returns an empty Store.
func NewStore[K comparable, V any]() *Store[K, V] {
	return &Store[K, V]{items: map[K]V{}}
}

// Put adds an item.
func (s *Store[K, V]) Put(k K, v V) error {
	if len(s.items) >= MaxItems {
		return ErrFull
	}
	s.items[k] = v
	return nil
}

func (s Store[K, V]) Len() int { return len(s.items) }

func helper() {}
