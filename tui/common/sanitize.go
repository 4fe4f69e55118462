package common

import (
	"strings"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/sanitize"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Sanitize removes from untrusted text everything a terminal would act on
// instead of print, and shows the invisible characters that would change
// what the reader sees (see sanitize.Display).
func Sanitize(s string) string { return sanitize.Display(s) }

// OneLine makes s safe as a one-line name (sanitize.Title: every invisible
// format character shown) and, when it has line breaks or tabs, folds its
// white space into single spaces (dpe.OneLine), for titles and cells that
// must stay on one row; deliberate double spaces of a single line stay.
func OneLine(s string) string {
	s = sanitize.Title(s)
	if !strings.ContainsAny(s, "\n\t") {
		return s
	}
	return dpe.OneLine(s)
}

// sanitizeValue returns v with every string inside it (map keys included)
// sanitized. It understands the shapes encoding/json produces and the
// string slices Go callers use.
func sanitizeValue(v any) any {
	switch v := v.(type) {
	case string:
		return Sanitize(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[Sanitize(k)] = sanitizeValue(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = sanitizeValue(x)
		}
		return out
	case []string:
		return SanitizeStrings(v)
	case [][]string:
		out := make([][]string, len(v))
		for i, r := range v {
			out[i] = SanitizeStrings(r)
		}
		return out
	}
	return v
}

// SanitizeStrings sanitizes every string of ss (nil stays nil).
func SanitizeStrings(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = Sanitize(s)
	}
	return out
}

func sanitizeMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	return sanitizeValue(m).(map[string]any)
}

// SanitizeSkipped sanitizes a document server's account of the files it
// skipped (a copy: reasons and examples).
func SanitizeSkipped(s *protocol.SkippedFiles) *protocol.SkippedFiles {
	out := &protocol.SkippedFiles{Count: s.Count, Reasons: map[string]int{}, Examples: SanitizeStrings(s.Examples)}
	for r, n := range s.Reasons {
		out.Reasons[Sanitize(r)] += n
	}
	return out
}

// SanitizeSummary sanitizes every text field of a catalog entry.
func SanitizeSummary(d protocol.DPEDocumentSummary) protocol.DPEDocumentSummary {
	d.DocRef, d.URI, d.FileURI, d.Path = Sanitize(d.DocRef), Sanitize(d.URI), Sanitize(d.FileURI), Sanitize(d.Path)
	d.Unreadable, d.Truncated = Sanitize(d.Unreadable), Sanitize(d.Truncated)
	d.FileType, d.Title, d.Summary = Sanitize(d.FileType), Sanitize(d.Title), Sanitize(d.Summary)
	d.Server, d.LastModified = Sanitize(d.Server), Sanitize(d.LastModified)
	d.Keywords = SanitizeStrings(d.Keywords)
	return d
}

// SanitizeDocument returns a sanitized copy of a Level 1 read.
func SanitizeDocument(d *protocol.DPEDocument) *protocol.DPEDocument {
	c := *d
	c.DocRef, c.URI, c.FileURI = Sanitize(d.DocRef), Sanitize(d.URI), Sanitize(d.FileURI)
	c.FileType, c.Title, c.Summary = Sanitize(d.FileType), Sanitize(d.Title), Sanitize(d.Summary)
	c.LastModified = Sanitize(d.LastModified)
	c.Keywords = SanitizeStrings(d.Keywords)
	if d.Pages != nil {
		c.Pages = make([]protocol.DPEPageSummary, len(d.Pages))
		for i, p := range d.Pages {
			p.Title, p.URI, p.DocRef = Sanitize(p.Title), Sanitize(p.URI), Sanitize(p.DocRef)
			if p.Bookmarks != nil {
				marks := make([]protocol.DPEBookmark, len(p.Bookmarks))
				for k, b := range p.Bookmarks {
					marks[k] = protocol.DPEBookmark{Title: Sanitize(b.Title), Level: b.Level}
				}
				p.Bookmarks = marks
			}
			c.Pages[i] = p
		}
	}
	return &c
}

// SanitizeElement sanitizes an element, its content and metadata.
func SanitizeElement(e protocol.DPEElementDetail) protocol.DPEElementDetail {
	e.ElementID, e.Category, e.Summary = Sanitize(e.ElementID), Sanitize(e.Category), Sanitize(e.Summary)
	e.DocRef, e.URI = Sanitize(e.DocRef), Sanitize(e.URI)
	e.Content = sanitizeMap(e.Content)
	e.Metadata = sanitizeMap(e.Metadata)
	return e
}

// SanitizePage returns a sanitized copy of a Level 2 read.
func SanitizePage(p *protocol.DPEPage) *protocol.DPEPage {
	c := *p
	c.Title, c.DocRef, c.URI = Sanitize(p.Title), Sanitize(p.DocRef), Sanitize(p.URI)
	c.Elements = make([]protocol.DPEElementDetail, len(p.Elements))
	for i, e := range p.Elements {
		c.Elements[i] = SanitizeElement(e)
	}
	return &c
}

// SanitizeMatch sanitizes a search match, moving its offsets onto the
// cleaned line (or dropping a highlight that cannot be found there).
func SanitizeMatch(m protocol.SearchMatch) protocol.SearchMatch {
	m.URI, m.DocRef, m.Title, m.FileType = Sanitize(m.URI), Sanitize(m.DocRef), Sanitize(m.Title), Sanitize(m.FileType)
	m.Path, m.Server, m.ElementID = Sanitize(m.Path), Sanitize(m.Server), Sanitize(m.ElementID)
	clean := Sanitize(m.Line)
	if clean == m.Line {
		return m
	}
	// The offsets point into the text as sent: a match starts where the
	// cleaned text before it ends, and must read the same there.
	moved := func(a, b int) (int, int, bool) {
		if a < 0 || b > len(m.Line) || a >= b {
			return 0, 0, false
		}
		x := len(Sanitize(m.Line[:a]))
		y := x + len(Sanitize(m.Line[a:b]))
		return x, y, x < y && y <= len(clean) && clean[x:y] == Sanitize(m.Line[a:b])
	}
	var hl [][2]int
	for _, h := range m.Highlights {
		if x, y, ok := moved(h[0], h[1]); ok {
			hl = append(hl, [2]int{x, y})
		}
	}
	start, end, ok := moved(m.Start, m.End)
	if !ok {
		start, end = 0, 0
	}
	m.Line, m.Start, m.End, m.Highlights = clean, start, end, hl
	return m
}

// Mapped returns a new slice of f applied to every element of xs.
func Mapped[T any](xs []T, f func(T) T) []T {
	out := make([]T, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
