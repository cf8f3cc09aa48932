// Package archtest holds the test that enforces docs/ARCHITECTURE.md's
// table of what may import what, for every package of the module. It has
// no code of its own.
package archtest
