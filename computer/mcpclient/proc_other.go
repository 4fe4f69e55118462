//go:build !unix

package mcpclient

import "os/exec"

func setProcessGroup(cmd *exec.Cmd) {}

// signalGroup kills the child (no process groups here).
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
