//go:build !unix

package redistest

// Pause needs SIGSTOP: the tests that hang Redis skip here.
func (r *Redis) Pause() { r.t.Skip("pausing redis-server needs SIGSTOP (unix)") }

// Resume continues a paused server.
func (r *Redis) Resume() {}
