package extract

import (
	"os/exec"
	"runtime"
	"syscall"
)

// dieWithParent sets the parent-death signal of the child (SIGKILL when
// this process dies). The kernel sends it when the thread that started the
// child exits, so that goroutine stays on its thread until the child is
// reaped; the returned function releases it.
func dieWithParent(cmd *exec.Cmd) func() {
	runtime.LockOSThread()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return runtime.UnlockOSThread
}
