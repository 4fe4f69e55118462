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

// ParseVersion parses "MAJOR.MINOR.PATCH" (non-negative decimal integers).
// A SemVer pre-release or build suffix ("-dev", "-rc.1", "+build.5") is
// accepted and ignored: compatibility depends on MAJOR.MINOR only.
func ParseVersion(s string) (ProtocolVersion, error) {
	core := s
	if i := strings.IndexAny(s, "-+"); i >= 0 {
		core = s[:i]
		if suffix := s[i+1:]; suffix == "" || strings.TrimLeft(suffix, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz.-+") != "" {
			return ProtocolVersion{}, fmt.Errorf("invalid version %q: bad pre-release or build suffix", s)
		}
	}
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return ProtocolVersion{}, fmt.Errorf("invalid version %q: want MAJOR.MINOR.PATCH", s)
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

// anyPatch is the patch number SupportedRange's upper end carries: any
// patch is admitted, and versioning.md's example writes it 999.
const anyPatch = 999

// SupportedRange returns the lowest and highest client versions a server
// speaking v admits (CompatibleWith), the min_supported and max_supported
// of a 4008 refusal: in 0.x v's MAJOR.MINOR, from 1.0 MAJOR.0 to v's MINOR.
func (v ProtocolVersion) SupportedRange() (lo, hi ProtocolVersion) {
	lo = ProtocolVersion{Major: v.Major, Minor: v.Minor}
	if v.Major > 0 {
		lo.Minor = 0
	}
	return lo, ProtocolVersion{Major: v.Major, Minor: v.Minor, Patch: anyPatch}
}
