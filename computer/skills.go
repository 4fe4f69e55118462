package computer

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/internal/sanitize"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// This Computer has no SKILL sources (no skill:// MCP resources are
// staged, no marketplace or user skills) and mints no blob handles, so the
// SKILL and blob events answer what is true: an empty list, and the
// protocol's codes for a name or handle that resolves to nothing.

// handleGetSkills serves client:get_skills: no skills.
func (c *Computer) handleGetSkills(ctx context.Context, req protocol.GetSkillsReq) (any, error) {
	return protocol.GetSkillsRet{Skills: []protocol.A2CSkillRef{}, ReqID: req.ReqID}, nil
}

// handleGetSkill serves client:get_skill: a name that breaks the SKILL
// name lexer is 4016; a well-formed one names no skill here, 4014.
func (c *Computer) handleGetSkill(ctx context.Context, req protocol.GetSkillReq) (any, error) {
	if err := validSkillName(req.Name); err != nil {
		return nil, protocol.Errorf(protocol.CodeSkillNameInvalid, "invalid skill name: %v", err).
			WithDetails(map[string]any{"name": clip(req.Name)})
	}
	return nil, protocol.Errorf(protocol.CodeMCPServerNotFound, "no skill %q on this computer (it has no SKILL sources)", clip(req.Name)).
		WithDetails(map[string]any{"name": clip(req.Name)})
}

// maxEcho bounds the part of a request value an error repeats.
const maxEcho = 200

// clip shortens s for an error message, on a rune boundary.
func clip(s string) string { return sanitize.Clip(s, maxEcho) }

// maxSkillSegment bounds a kebab-case segment of a SKILL name.
const maxSkillSegment = 64

// validSkillName applies the SKILL name lexer (skill.md §1.4): one segment
// (user), two (marketplace plugin:skill) or three with "mcp" first
// (mcp:bundle_id:skill); skill and plugin segments are strict kebab case.
func validSkillName(name string) error {
	segs := strings.Split(name, ":")
	switch len(segs) {
	case 1, 2:
		for _, s := range segs {
			if err := kebab(s); err != nil {
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
		return kebab(segs[2])
	}
	return fmt.Errorf("%d parts separated by ':' (want 1, 2 or 3)", len(segs))
}

// kebab checks one kebab-case segment: [a-z0-9-], 1-64 long, no leading,
// trailing or doubled '-'.
func kebab(s string) error {
	switch {
	case s == "":
		return errors.New("empty segment")
	case len(s) > maxSkillSegment:
		return fmt.Errorf("segment %q is longer than %d", clip(s), maxSkillSegment)
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
