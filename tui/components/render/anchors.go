package render

import "strings"

// AnchorMark goes before the text of an element whose line must be found
// after rendering (a heading an outline or a link jumps to): the renderer
// then knows where the element starts, whatever other lines say the same
// words. It is a word joiner: zero cells wide, so it changes no layout, and
// never in the text the browser renders (sanitize shows a word joiner as
// ⟨U+2060⟩). Anchors takes the marks out.
const AnchorMark = "\u2060"

// Anchors returns out without its marks and the line of each: the i-th
// mark, in reading order, is ids[i]. When the marks and ids do not pair up
// (a renderer dropped or repeated one), no line is claimed: a jump to a
// wrong line is worse than none.
func Anchors(out string, ids []string) (string, map[string]int) {
	if !strings.Contains(out, AnchorMark) {
		return out, nil
	}
	lines := strings.Split(out, "\n")
	var at []int
	for i, l := range lines {
		if n := strings.Count(l, AnchorMark); n > 0 {
			for range n {
				at = append(at, i)
			}
			lines[i] = strings.ReplaceAll(l, AnchorMark, "")
		}
	}
	text := strings.Join(lines, "\n")
	if len(at) != len(ids) {
		return text, nil
	}
	anchors := make(map[string]int, len(ids))
	for i, id := range ids {
		anchors[id] = at[i]
	}
	return text, anchors
}
