//go:build unix

package fulltext

import (
	"os"

	"golang.org/x/sys/unix"
)

// inUse reports whether a process holds the bolt file at path (bolt locks
// it while the index is open).
func inUse(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return true
	}
	_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return false
}
