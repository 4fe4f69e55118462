//go:build unix

package docserver

import (
	"io/fs"
	"syscall"
)

// accessOf is what decides whether the server may read a file: its
// permission bits and owner.
func accessOf(info fs.FileInfo) access {
	a := access{Perm: uint32(info.Mode().Perm())}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		a.UID, a.GID = st.Uid, st.Gid
	}
	return a
}
