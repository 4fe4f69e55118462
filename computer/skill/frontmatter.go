package skill

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// maxFrontMatter bounds the YAML block of a SKILL.md (a SKILL.md is
// untrusted text; YAML aliases can blow up).
const maxFrontMatter = 64 << 10

// ErrNoFrontMatter is returned for a SKILL.md that does not start with a
// "---" line closed by another.
var ErrNoFrontMatter = errors.New("no YAML front matter (a '---' line, the fields, a '---' line)")

// splitFrontMatter returns the YAML block of text and the body after its
// closing fence (line endings kept), as the SDK cuts it: the first line
// must be "---" and the block ends at the next line that is "---" once
// trimmed.
func splitFrontMatter(text string) (block, body string, ok bool) {
	first, rest, found := strings.Cut(text, "\n")
	if !found || strings.TrimSpace(first) != "---" || !strings.HasPrefix(text, "---") {
		return "", text, false
	}
	var b strings.Builder
	for rest != "" {
		line, after, _ := strings.Cut(rest, "\n")
		if strings.TrimSpace(line) == "---" {
			return b.String(), after, true
		}
		b.WriteString(line)
		b.WriteByte('\n')
		rest = after
	}
	return "", text, false
}

// StripFrontMatter returns the body of a SKILL.md: what follows its front
// matter, or all of text when it has none. This is what client:get_skill
// serves for SKILL.md.
func StripFrontMatter(text string) string {
	_, body, _ := splitFrontMatter(text)
	return body
}

// ParseFrontMatter parses the YAML front matter of a SKILL.md into a map.
func ParseFrontMatter(text string) (map[string]any, error) {
	block, _, ok := splitFrontMatter(text)
	if !ok {
		return nil, ErrNoFrontMatter
	}
	if len(block) > maxFrontMatter {
		return nil, fmt.Errorf("front matter is %d bytes, more than %d", len(block), maxFrontMatter)
	}
	var fm map[string]any
	if err := yaml.Unmarshal([]byte(block), &fm); err != nil {
		return nil, fmt.Errorf("front matter is not YAML: %w", err)
	}
	if fm == nil {
		return nil, errors.New("front matter is empty or not a mapping")
	}
	return fm, nil
}

// FillRef sets ref's description and optional fields from front matter fm
// as the SDK does: license and compatibility as strings, allowed-tools as
// a list (a single value becomes a one-item list), tags only when a list
// of strings, metadata only when a mapping. A missing description is an
// error (the SKILL is not listed).
func FillRef(ref *protocol.A2CSkillRef, fm map[string]any) error {
	desc, ok := fm["description"]
	if !ok || desc == nil || fmt.Sprint(desc) == "" {
		return errors.New("front matter has no description")
	}
	ref.Description = fmt.Sprint(desc)
	if v, ok := fm["license"]; ok && v != nil {
		ref.License = fmt.Sprint(v)
	}
	if v, ok := fm["compatibility"]; ok && v != nil {
		ref.Compatibility = fmt.Sprint(v)
	}
	allowed, ok := fm["allowed-tools"]
	if !ok {
		allowed, ok = fm["allowed_tools"]
	}
	if ok && allowed != nil {
		if list, isList := allowed.([]any); isList {
			for _, t := range list {
				ref.AllowedTools = append(ref.AllowedTools, fmt.Sprint(t))
			}
		} else {
			ref.AllowedTools = []string{fmt.Sprint(allowed)}
		}
	}
	if list, isList := fm["tags"].([]any); isList {
		tags := make([]string, 0, len(list))
		for _, t := range list {
			s, isStr := t.(string)
			if !isStr {
				tags = nil
				break
			}
			tags = append(tags, s)
		}
		ref.Tags = tags
	}
	if m, isMap := jsonSafe(fm["metadata"]).(map[string]any); isMap {
		ref.SkillMetadata = m
	}
	return nil
}

// jsonSafe turns the maps YAML decodes with non-string keys into
// map[string]any, so that skill_metadata always encodes as JSON.
func jsonSafe(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonSafe(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = jsonSafe(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonSafe(e)
		}
		return out
	}
	return v
}
