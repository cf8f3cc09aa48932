//go:build !race

package sqlite

// raceEnabled is set when the tests run with the race detector (whose
// sync.Pool drops items at random: allocation counts do not hold).
const raceEnabled = false
