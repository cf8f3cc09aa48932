//go:build !linux

package extract

import "os/exec"

// dieWithParent does nothing here: the watch pipe ends the child.
func dieWithParent(*exec.Cmd) func() { return func() {} }
