//go:build linux || darwin || freebsd

package machine

import "syscall"

// lowerPriority makes a compiler process (and the processes it starts
// from now on) yield to the language server: nice 10, so a background
// compile of one kernel does not slow the analysis of the next
// keystroke on a machine with few cores.
func lowerPriority(pid int) {
	syscall.Setpriority(syscall.PRIO_PROCESS, pid, 10)
}
