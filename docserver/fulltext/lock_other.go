//go:build !unix

package fulltext

import "os"

// inUse cannot tell on this system: an index is taken to be in use.
func inUse(string) bool { return true }

// ownPrivateDir cannot tell a folder's owner on this system: it accepts a
// folder.
func ownPrivateDir(dir string) error {
	info, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return &os.PathError{Op: "share", Path: dir, Err: os.ErrPermission}
	}
	return nil
}
