// Package skill finds the SKILLs a Computer offers (skill.md of
// A2C-SMCP): folders of <name>/SKILL.md it is configured with, and SKILLs
// staged from MCP servers' skill:// resources. It parses SKILL.md's YAML
// front matter into protocol.A2CSkillRef, checks SKILL names, and reads a
// resource inside a SKILL's folder without leaving it.
package skill

import (
	"errors"
	"fmt"
	"strings"

	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/internal/sanitize"
)

// File is the entry document of every SKILL folder.
const File = "SKILL.md"

// SourceUser is the source of a SKILL found in a configured folder (the
// upstream "user" source: named by its directory, no uri).
const SourceUser = "user"

// maxSegment bounds a kebab-case segment of a SKILL name.
const maxSegment = 64

// clip shortens s for an error message.
func clip(s string) string { return sanitize.Clip(s, 200) }

// ValidName applies the SKILL name lexer (skill.md §1.4): one segment
// (user), two (marketplace plugin:skill) or three with "mcp" first
// (mcp:bundle_id:skill); skill and plugin segments are strict kebab case.
func ValidName(name string) error {
	segs := strings.Split(name, ":")
	switch len(segs) {
	case 1, 2:
		for _, s := range segs {
			if err := Kebab(s); err != nil {
				return err
			}
		}
		return nil
	case 3:
		if segs[0] != "mcp" {
			return fmt.Errorf("a three-part name must start with \"mcp:\", not %q", clip(segs[0])+":")
		}
		if config.ValidBundleID(segs[1]) != nil {
			return fmt.Errorf("server part %q is not a bundle_id ([A-Za-z0-9_-], no \"__\")", clip(segs[1]))
		}
		return Kebab(segs[2])
	}
	return fmt.Errorf("%d parts separated by ':' (want 1, 2 or 3)", len(segs))
}

// Kebab checks one kebab-case segment: [a-z0-9-], 1-64 long, no leading,
// trailing or doubled '-'.
func Kebab(s string) error {
	switch {
	case s == "":
		return errors.New("empty segment")
	case len(s) > maxSegment:
		return fmt.Errorf("segment %q is longer than %d", clip(s), maxSegment)
	case strings.HasPrefix(s, "-") || strings.HasSuffix(s, "-") || strings.Contains(s, "--"):
		return fmt.Errorf("segment %q has a leading, trailing or doubled '-'", clip(s))
	}
	for _, r := range s {
		if !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-') {
			return fmt.Errorf("segment %q has %q (want a-z, 0-9 and '-')", clip(s), r)
		}
	}
	return nil
}

// MCPName is the name of the SKILL skill staged from the MCP server
// bundleID: "mcp:<bundle_id>:<skill>".
func MCPName(bundleID, skill string) string { return "mcp:" + bundleID + ":" + skill }
