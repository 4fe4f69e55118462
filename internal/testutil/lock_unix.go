//go:build unix

package testutil

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on path (created when missing), waiting
// for another process that holds it; unlock releases it. The lock goes
// with the process, so one that dies holding it never blocks the others.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
