//go:build !unix

package docserver

import "io/fs"

// accessOf is what decides whether the server may read a file: here its
// permission bits.
func accessOf(info fs.FileInfo) access {
	return access{Perm: uint32(info.Mode().Perm())}
}
