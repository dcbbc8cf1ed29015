//go:build !(linux || darwin || freebsd)

package machine

// lowerPriority does nothing where tilels does not know how to.
func lowerPriority(pid int) {}
