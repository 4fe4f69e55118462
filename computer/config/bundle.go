package config

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// NormalizeName is step 1 of the bundle_id derivation: every code point
// outside [A-Za-z0-9_-] becomes '_', runs of '_' collapse to one, leading
// and trailing '_' and '-' are trimmed; case is kept.
func NormalizeName(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	lastUnderscore := false
	for _, r := range name {
		if !isBundleChar(r) {
			r = '_'
		}
		if r == '_' {
			if lastUnderscore {
				continue
			}
			lastUnderscore = true
		} else {
			lastUnderscore = false
		}
		b.WriteRune(r)
	}
	return strings.Trim(b.String(), "_-")
}

func isBundleChar(r rune) bool {
	return r == '_' || r == '-' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')
}

// ValidBundleID reports whether id may be used as an explicit bundle_id:
// non-empty, only [A-Za-z0-9_-], and no "__" (the tool-name separator).
func ValidBundleID(id string) error {
	if id == "" {
		return fmt.Errorf("bundle_id is empty")
	}
	for _, r := range id {
		if !isBundleChar(r) {
			return fmt.Errorf("bundle_id %q: character %q is not in [A-Za-z0-9_-]", id, r)
		}
	}
	if strings.Contains(id, "__") {
		return fmt.Errorf("bundle_id %q contains \"__\", the reserved tool-name separator", id)
	}
	return nil
}

// deriveBundleID returns the default bundle_id of a server from its display
// name, falling back to a digest of its raw (unresolved) connection identity
// when the name normalizes to nothing.
func deriveBundleID(name, typ string, p Params) string {
	if n := NormalizeName(name); n != "" {
		return n
	}
	sum := sha256.Sum256(connectionIdentity(typ, p))
	return "bundle_" + hex.EncodeToString(sum[:8])
}

// connectionIdentity frames the connection fields with u32 big-endian
// length prefixes: stdio = type, command, args, env; sse/streamable = type,
// url, headers. Maps are written in ascending key order.
func connectionIdentity(typ string, p Params) []byte {
	var buf []byte
	str := func(s string) {
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(s)))
		buf = append(buf, s...)
	}
	list := func(l []string) {
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(l)))
		for _, s := range l {
			str(s)
		}
	}
	dict := func(m map[string]string) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(keys)))
		for _, k := range keys {
			str(k)
			str(m[k])
		}
	}
	str(typ)
	if typ == TypeStdio {
		str(p.Command)
		list(p.Args)
		dict(p.Env)
	} else {
		str(p.URL)
		dict(p.Headers)
	}
	return buf
}
