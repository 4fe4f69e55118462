package pages

import (
	"context"
	"sort"
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/components/picker"
)

// heading is one entry of an outline: a heading element of a page.
type heading struct {
	page      int
	level     int
	text      string
	elementID string
}

// pageHeadings returns the heading elements of a page, in order.
func pageHeadings(p *protocol.DPEPage) []heading {
	var out []heading
	for _, e := range p.Elements {
		if e.Category != string(dpe.Heading) {
			continue
		}
		text, _ := e.Content["text"].(string)
		if text = common.OneLine(text); text == "" {
			text = common.OneLine(e.Summary)
		}
		if text == "" {
			continue
		}
		lvl := 1
		switch v := e.Content["level"].(type) {
		case float64:
			lvl = int(v)
		case int:
			lvl = v
		}
		out = append(out, heading{page: p.PageIndex, level: min(max(lvl, 1), 6), text: text, elementID: e.ElementID})
	}
	return out
}

// outlineItems lays headings out for a picker, indented by level relative
// to the shallowest one; withPage adds "p. N" to each.
func outlineItems(hs []heading, withPage bool) []picker.Item {
	top := 6
	for _, h := range hs {
		top = min(top, h.level)
	}
	items := make([]picker.Item, len(hs))
	for i, h := range hs {
		items[i] = picker.Item{Label: h.text, Indent: h.level - top}
		if withPage {
			items[i].Detail = "p. " + common.Itoa(h.page+1)
		}
	}
	return items
}

// locateHeadings finds the line of each heading in rendered lines (plain
// text): the first line at or after the previous heading's line that holds
// the start of the heading's text (a heading that wraps is found by its
// first words). A heading not found gets -1.
func locateHeadings(lines []string, hs []heading) []int {
	at := make([]int, len(hs))
	from := 0
	for i, h := range hs {
		at[i] = -1
		needle := strings.ToLower(headingProbe(h.text))
		for l := from; l < len(lines); l++ {
			if strings.Contains(strings.ToLower(lines[l]), needle) {
				at[i], from = l, l+1
				break
			}
		}
	}
	return at
}

// headingProbe is the start of a heading's text that survives wrapping:
// its first words, up to 24 characters.
func headingProbe(text string) string {
	words := strings.Fields(text)
	var b strings.Builder
	for _, w := range words {
		if b.Len() > 0 && len([]rune(b.String()))+1+len([]rune(w)) > 24 {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	if b.Len() == 0 {
		return text
	}
	r := []rune(b.String())
	return string(r[:min(len(r), 24)])
}

// currentHeading returns the index of the heading the view at line y is
// in: the last located heading at or above y (-1 before the first).
func currentHeading(at []int, y int) int {
	cur := -1
	for i, l := range at {
		if l >= 0 && l <= y {
			cur = i
		}
	}
	return cur
}

// slug is the anchor of a heading as Markdown renderers make it (GitHub's
// rules): lower case, spaces to '-', punctuation dropped, letters and
// digits of any script kept.
func slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// findAnchor returns the heading an #anchor names: by slug, then by text.
func findAnchor(hs []heading, anchor string) (heading, bool) {
	a := strings.ToLower(strings.TrimPrefix(anchor, "#"))
	for _, h := range hs {
		if slug(h.text) == a {
			return h, true
		}
	}
	for _, h := range hs {
		if strings.EqualFold(h.text, anchor) {
			return h, true
		}
	}
	return heading{}, false
}

// maxOutlinePages bounds the pages a document outline reads.
const maxOutlinePages = 500

// outlineConcurrency bounds the parallel reads of a document outline.
const outlineConcurrency = 4

// docOutlineMsg carries a document's outline.
type docOutlineMsg struct {
	owner     any
	doc       string // the document URI it is of
	headings  []heading
	titles    []string // page titles, by index
	truncated bool     // the document has more pages than were read
	err       error
}

// docOutlineCmd reads the headings of every page of doc (pages/N with
// categories=heading, a few at a time, at most maxOutlinePages) and the
// page titles.
func docOutlineCmd(c *common.Common, owner any, comp string, doc dpe.URI, pages int) tea.Cmd {
	n := min(pages, maxOutlinePages)
	return common.Call(c, func(ctx context.Context, b common.Backend) (docOutlineMsg, error) {
		out := docOutlineMsg{owner: owner, doc: doc.String(), titles: make([]string, n), truncated: pages > n}
		per := make([][]heading, n)
		errs := make([]error, n)
		sem := make(chan struct{}, outlineConcurrency)
		done := make(chan struct{}, n)
		for i := range n {
			go func() {
				sem <- struct{}{}
				defer func() { <-sem; done <- struct{}{} }()
				u := dpe.Page(doc.Host, doc.DocRef, i).WithQuery(dpe.Query{Categories: []dpe.Category{dpe.Heading}})
				p, err := b.ReadPage(ctx, comp, u)
				if err != nil {
					errs[i] = err
					return
				}
				p = common.SanitizePage(p)
				p.PageIndex = i
				out.titles[i] = common.OneLine(p.Title)
				per[i] = pageHeadings(p)
			}()
		}
		for range n {
			<-done
		}
		for i := range n {
			if errs[i] != nil {
				if protocol.CodeOf(errs[i]) == protocol.CodePageOutOfRange {
					out.titles = out.titles[:i]
					break
				}
				return out, errs[i]
			}
			out.headings = append(out.headings, per[i]...)
		}
		return out, nil
	}, func(m docOutlineMsg, err error) tea.Msg {
		m.owner, m.err = owner, err
		return m
	})
}

// documentOutlineItems lays a document outline out: for a document of
// several pages, each page's title (when its first heading does not say
// it) then the page's headings, indented by level; targets gives each row's
// page and heading (no element ID for a page's own row).
func documentOutlineItems(m docOutlineMsg) (items []picker.Item, targets []heading) {
	byPage := map[int][]heading{}
	top := 6
	for _, h := range m.headings {
		byPage[h.page] = append(byPage[h.page], h)
		top = min(top, h.level)
	}
	multi := len(m.titles) > 1
	for p, title := range m.titles {
		hs := byPage[p]
		shift := 0
		if multi && title != "" && (len(hs) == 0 || !strings.EqualFold(hs[0].text, title)) {
			items = append(items, picker.Item{Label: title, Detail: "p. " + common.Itoa(p+1)})
			targets = append(targets, heading{page: p, text: title})
			shift = 1
		}
		for _, h := range hs {
			items = append(items, picker.Item{Label: h.text, Indent: h.level - top + shift, Detail: "p. " + common.Itoa(p+1)})
			targets = append(targets, h)
		}
	}
	return items, targets
}

// pageOfRow returns the first row of page p among targets (for "you are
// here").
func pageOfRow(targets []heading, p int) int {
	i := sort.Search(len(targets), func(i int) bool { return targets[i].page >= p })
	if i < len(targets) && targets[i].page == p {
		return i
	}
	return -1
}
