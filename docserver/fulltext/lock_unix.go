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

// ownPrivateDir checks that dir is a folder of this user's that no one
// else can enter (where a shared index's socket may be made).
func ownPrivateDir(dir string) error {
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Getuid() || st.Mode&0o077 != 0 {
		return &os.PathError{Op: "share", Path: dir, Err: os.ErrPermission}
	}
	return nil
}
