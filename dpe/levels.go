package dpe

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// RenderCatalogMarkdown renders a Level 0 catalog to Markdown: a heading
// with the total, then one item per document (title linked to its URI,
// path, type, pages, modification time, summary).
func RenderCatalogMarkdown(c protocol.DPECatalog) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Documents (%d)\n", c.TotalCount)
	for _, d := range c.Documents {
		fmt.Fprintf(&b, "\n- [%s](%s) — ", linkText(d.Title), destination(d.URI))
		if d.Path != "" {
			b.WriteString(CodeSpan(OneLine(d.Path)) + " · ")
		}
		fmt.Fprintf(&b, "%s · %s", EscapeSpan(d.FileType), plural(d.PageCount, "page"))
		if d.LastModified != "" {
			fmt.Fprintf(&b, " · %s", EscapeSpan(d.LastModified))
		}
		if d.Unreadable != "" {
			fmt.Fprintf(&b, " · unreadable: %s", EscapeSpan(d.Unreadable))
		}
		if d.Truncated != "" {
			fmt.Fprintf(&b, " · cut short: %s", EscapeSpan(d.Truncated))
		}
		if d.Summary != "" {
			fmt.Fprintf(&b, "\n  %s", EscapeSpan(d.Summary))
		}
	}
	b.WriteByte('\n')
	if c.Skipped != nil {
		fmt.Fprintf(&b, "\n%s\n", EscapeText(SkippedNote(*c.Skipped)))
	}
	return b.String()
}

// SkippedNote says in one line what a server left out of its catalog:
// "756 files not served: 713 binary, 43 unreadable (e.g. a.png, b.zip)".
func SkippedNote(s protocol.SkippedFiles) string {
	reasons := make([]string, 0, len(s.Reasons))
	for r := range s.Reasons {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if s.Reasons[reasons[i]] != s.Reasons[reasons[j]] {
			return s.Reasons[reasons[i]] > s.Reasons[reasons[j]]
		}
		return reasons[i] < reasons[j]
	})
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = fmt.Sprintf("%d %s", s.Reasons[r], OneLine(r))
	}
	note := plural(s.Count, "file") + " not served: " + strings.Join(parts, ", ")
	if len(s.Examples) > 0 {
		ex := make([]string, len(s.Examples))
		for i, e := range s.Examples {
			ex[i] = OneLine(e)
		}
		note += " (e.g. " + strings.Join(ex, ", ") + ")"
	}
	return note
}

// RenderCatalogText renders a Level 0 catalog to plain text.
func RenderCatalogText(c protocol.DPECatalog) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Documents: %d\n", c.TotalCount)
	for _, d := range c.Documents {
		fmt.Fprintf(&b, "\n%s\n  ", OneLine(d.Title))
		if d.Path != "" {
			b.WriteString(OneLine(d.Path) + " · ")
		}
		fmt.Fprintf(&b, "%s · %s · %s", d.URI, d.FileType, plural(d.PageCount, "page"))
		if d.Unreadable != "" {
			fmt.Fprintf(&b, " · unreadable: %s", OneLine(d.Unreadable))
		}
		if d.Truncated != "" {
			fmt.Fprintf(&b, " · cut short: %s", OneLine(d.Truncated))
		}
		b.WriteByte('\n')
		if d.Summary != "" {
			fmt.Fprintf(&b, "  %s\n", OneLine(d.Summary))
		}
	}
	if c.Skipped != nil {
		fmt.Fprintf(&b, "\n%s\n", SkippedNote(*c.Skipped))
	}
	return b.String()
}

// RenderDocumentMarkdown renders a Level 1 document to Markdown: title,
// summary, facts, and with depth=pages its page index.
func RenderDocumentMarkdown(d protocol.DPEDocument) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", EscapeSpan(d.Title))
	if d.Summary != "" {
		fmt.Fprintf(&b, "%s\n\n", EscapeText(d.Summary))
	}
	fmt.Fprintf(&b, "- Type: %s · %s\n", EscapeSpan(d.FileType), plural(d.PageCount, "page"))
	if d.Unreadable != "" {
		fmt.Fprintf(&b, "- Unreadable: %s\n", EscapeSpan(d.Unreadable))
	}
	if d.Truncated != "" {
		fmt.Fprintf(&b, "- Cut short: %s\n", EscapeSpan(d.Truncated))
	}
	if d.LastModified != "" {
		fmt.Fprintf(&b, "- Modified: %s\n", EscapeSpan(d.LastModified))
	}
	if len(d.Keywords) > 0 {
		fmt.Fprintf(&b, "- Keywords: %s\n", EscapeSpan(strings.Join(d.Keywords, ", ")))
	}
	fmt.Fprintf(&b, "- File: <%s>\n", angleEscaper.Replace(OneLine(d.FileURI)))
	switch {
	case d.PageOffset != nil && len(d.Pages) == 0:
		fmt.Fprintf(&b, "\n## Pages (none from %d; %d in all)\n", *d.PageOffset, deref(d.PageTotal))
	case d.PageOffset != nil:
		fmt.Fprintf(&b, "\n## Pages (%d–%d of %d)\n\n", *d.PageOffset, *d.PageOffset+len(d.Pages)-1, deref(d.PageTotal))
		for _, p := range d.Pages {
			fmt.Fprintf(&b, "%d. [%s](%s) — %s\n", p.PageIndex, linkText(p.Title), destination(p.URI), elementCount(p.ElementCount))
		}
	}
	return b.String()
}

// RenderDocumentText renders a Level 1 document to plain text.
func RenderDocumentText(d protocol.DPEDocument) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", OneLine(d.Title))
	if d.Summary != "" {
		fmt.Fprintf(&b, "%s\n", d.Summary)
	}
	fmt.Fprintf(&b, "Type: %s, %s\n", d.FileType, plural(d.PageCount, "page"))
	if d.Unreadable != "" {
		fmt.Fprintf(&b, "Unreadable: %s\n", OneLine(d.Unreadable))
	}
	if d.Truncated != "" {
		fmt.Fprintf(&b, "Cut short: %s\n", OneLine(d.Truncated))
	}
	if d.LastModified != "" {
		fmt.Fprintf(&b, "Modified: %s\n", d.LastModified)
	}
	if len(d.Keywords) > 0 {
		fmt.Fprintf(&b, "Keywords: %s\n", strings.Join(d.Keywords, ", "))
	}
	fmt.Fprintf(&b, "File: %s\n", d.FileURI)
	for _, p := range d.Pages {
		fmt.Fprintf(&b, "  %d  %s (%s)\n", p.PageIndex, OneLine(p.Title), elementCount(p.ElementCount))
	}
	return b.String()
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// elementCount says a page index entry's element count ("not read yet"
// for protocol.ElementsNotCounted).
func elementCount(n int) string {
	if n < 0 {
		return "not read yet"
	}
	return plural(n, "element")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
