//go:build unix

package redistest

import "syscall"

// Pause stops the server without closing its connections (SIGSTOP): it
// hangs, as an overloaded or partitioned Redis does. Resume undoes it.
func (r *Redis) Pause() { _ = r.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume continues a paused server.
func (r *Redis) Resume() { _ = r.cmd.Process.Signal(syscall.SIGCONT) }
