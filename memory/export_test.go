package memory

import (
	"time"

	"github.com/fsnotify/fsnotify"
)

// SetNewWatcher replaces the file watcher's constructor until the returned
// function restores it.
func SetNewWatcher(f func() (*fsnotify.Watcher, error)) (restore func()) {
	old := newWatcher
	newWatcher = f
	return func() { newWatcher = old }
}

// WatcherErrors is the running watcher's error channel (nil without one),
// for a test to make it fail.
func (s *Service) WatcherErrors() chan error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watch == nil {
		return nil
	}
	return s.watch.fw.Errors
}

// Watching reports whether the Service relies on a watcher.
func (s *Service) Watching() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.watch != nil
}

// SetRacyWindow replaces racyWindow until the returned function restores
// it: a test then waits d for its writes to be past it.
func SetRacyWindow(d time.Duration) (restore func()) {
	old := racyWindow
	racyWindow = d
	return func() { racyWindow = old }
}
