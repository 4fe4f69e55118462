package protocol

import (
	"fmt"
	"strconv"
	"strings"
)

// ProtocolVersion is a MAJOR.MINOR.PATCH protocol version.
type ProtocolVersion struct {
	Major, Minor, Patch int
}

// ParseVersion parses "MAJOR.MINOR.PATCH" (non-negative decimal integers,
// an optional pre-release suffix such as "-dev" on the patch is accepted and
// ignored for compatibility).
func ParseVersion(s string) (ProtocolVersion, error) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return ProtocolVersion{}, fmt.Errorf("invalid version %q: want MAJOR.MINOR.PATCH", s)
	}
	if i := strings.IndexByte(parts[2], '-'); i > 0 {
		parts[2] = parts[2][:i]
	}
	var n [3]int
	for i, p := range parts {
		if p == "" || len(p) > 9 || strings.TrimLeft(p, "0123456789") != "" {
			return ProtocolVersion{}, fmt.Errorf("invalid version %q: %q is not a number", s, p)
		}
		n[i], _ = strconv.Atoi(p)
	}
	return ProtocolVersion{n[0], n[1], n[2]}, nil
}

func (v ProtocolVersion) String() string {
	return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
}

// CompatibleWith reports whether a client speaking v may connect to a server
// speaking server: in 0.x MAJOR.MINOR must match; from 1.0 MAJOR must match
// and the client's MINOR may not be newer than the server's.
func (v ProtocolVersion) CompatibleWith(server ProtocolVersion) bool {
	if v.Major != server.Major {
		return false
	}
	if v.Major == 0 {
		return v.Minor == server.Minor
	}
	return v.Minor <= server.Minor
}
