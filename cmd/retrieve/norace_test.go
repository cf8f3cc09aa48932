//go:build !race

package main

// raceEnabled is set when the tests run with the race detector.
const raceEnabled = false
