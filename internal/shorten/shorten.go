// Package shorten fits paths and other long names into a number of terminal
// cells the way a reader tells them apart: cut in the middle, keeping the
// start and the end; and rounds durations for a person to read.
package shorten

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// Path fits p ('/'-separated) into w cells. A path that fits is returned
// as it is; a longer one loses folders from its middle, each run marked
// "…": the top folder and the file name stay, with as many of the folders
// just above the file as fit ("src/…/tar/example_test.go"); then the file
// name alone ("…/example_test.go"); then the file name cut in its middle.
// keep lists segment indexes that must stay too (a folder that tells p from
// another path; see Paths), given up only when they leave no room. The
// result is never wider than w.
func Path(p string, w int, keep ...int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(p) <= w {
		return p
	}
	segs := strings.Split(p, "/")
	last := len(segs) - 1
	if last == 0 {
		return Middle(p, w)
	}
	kept := make([]bool, len(segs))
	kept[last] = true
	for _, k := range keep {
		if k >= 0 && k < last {
			kept[k] = true
		}
	}
	for _, top := range []bool{true, false} {
		k := slices.Clone(kept)
		k[0] = k[0] || top
		cut := slices.Clone(segs)
		s := join(cut, k)
		for ansi.StringWidth(s) > w {
			// A folder that must stay is cut in its middle rather than lost.
			widest := -1
			for _, i := range keep {
				if i >= 0 && i < last && ansi.StringWidth(cut[i]) > 4 && (widest < 0 || ansi.StringWidth(cut[i]) > ansi.StringWidth(cut[widest])) {
					widest = i
				}
			}
			if widest < 0 {
				break
			}
			cw := ansi.StringWidth(cut[widest])
			cut[widest] = Middle(cut[widest], max(cw-(ansi.StringWidth(s)-w), 4))
			s = join(cut, k)
		}
		if ansi.StringWidth(s) > w {
			continue
		}
		for i := last - 1; i > 0 && !k[i]; i-- { // the folders above the file, nearest first
			k[i] = true
			t := join(cut, k)
			if ansi.StringWidth(t) > w {
				break
			}
			s = t
		}
		return s
	}
	if len(keep) > 0 {
		return Path(p, w)
	}
	if s := "…/" + segs[last]; ansi.StringWidth(s) <= w {
		return s
	}
	return Middle(segs[last], w)
}

// join writes the kept segments with "…" for each run of the others.
func join(segs []string, kept []bool) string {
	var b strings.Builder
	gap := false
	for i, s := range segs {
		switch {
		case kept[i]:
			gap = false
		case gap:
			continue
		default:
			gap, s = true, "…"
		}
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(s)
	}
	return b.String()
}

// Paths fits every path into w cells like Path and, among paths that end
// in the same file name, keeps in each the first folder in which it differs
// from each of the others (cut in its middle if need be): two README.md
// deep under different packages stay apart.
func Paths(ps []string, w int) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = Path(p, w)
	}
	for i, p := range ps {
		if out[i] == p {
			continue // whole: nothing to tell apart
		}
		name := p[strings.LastIndexByte(p, '/')+1:]
		si := strings.Split(p, "/")
		var keep []int
		for _, q := range ps {
			if q == p || q[strings.LastIndexByte(q, '/')+1:] != name {
				continue
			}
			if d := firstDiff(si, strings.Split(q, "/")); d < len(si)-1 && !slices.Contains(keep, d) {
				keep = append(keep, d)
			}
		}
		if len(keep) > 0 {
			out[i] = Path(p, w, keep...)
		}
	}
	return out
}

// firstDiff is the first index at which a and b differ.
func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// Middle cuts s to w cells, marking the cut with "…" in its middle (the
// end keeps a cell more than the start: an extension, a file name).
func Middle(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	r := []rune(s)
	room := w - 1
	head, tail := room/2, room-room/2
	i, hw := 0, 0
	for i < len(r) && hw+ansi.StringWidth(string(r[i])) <= head {
		hw += ansi.StringWidth(string(r[i]))
		i++
	}
	j, tw := len(r), 0
	for j > i && tw+ansi.StringWidth(string(r[j-1])) <= tail+(head-hw) {
		tw += ansi.StringWidth(string(r[j-1]))
		j--
	}
	return string(r[:i]) + "…" + string(r[j:])
}

// Duration rounds d for a person: "800 ms", "12 s", "3 min", "2 h 5 min".
func Duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	case d < 90*time.Second:
		return strconv.FormatInt(int64(d.Round(time.Second)/time.Second), 10) + " s"
	case d < 90*time.Minute:
		return strconv.FormatInt(int64(d.Round(time.Minute)/time.Minute), 10) + " min"
	}
	h, m := int64(d/time.Hour), int64(d%time.Hour/time.Minute)
	return strconv.FormatInt(h, 10) + " h " + strconv.FormatInt(m, 10) + " min"
}
