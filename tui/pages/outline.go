package pages

import (
	"context"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
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
	anchor    string // the heading's own id (HTML id, {#id}), "" when none
	decl      bool   // a declaration in a source file's code, found by its line
}

// declPattern is a kind of declaration a source file's outline lists: the
// start of its line, and its level (a method under the types).
type declPattern struct {
	re    *regexp.Regexp
	level int
}

// declPatterns are the declarations listed per language of a code element.
var declPatterns = map[string][]declPattern{
	"go": {
		{regexp.MustCompile(`^type \w`), 1},
		{regexp.MustCompile(`^func \w`), 1},
		{regexp.MustCompile(`^func \(`), 2},
	},
	"python": {
		{regexp.MustCompile(`^(async )?(class|def) \w`), 1},
		{regexp.MustCompile(`^\s+(async )?def \w`), 2},
	},
	"rust": {
		{regexp.MustCompile(`^(pub(\([\w:]+\))? )?(struct|enum|trait|impl|mod)\b`), 1},
		{regexp.MustCompile(`^(pub(\([\w:]+\))? )?(const |async |unsafe )*fn \w`), 1},
		{regexp.MustCompile(`^\s+(pub(\([\w:]+\))? )?(const |async |unsafe )*fn \w`), 2},
	},
	"javascript": jsDecls, "typescript": jsDecls, "tsx": jsDecls, "jsx": jsDecls,
}

var jsDecls = []declPattern{
	{regexp.MustCompile(`^(export )?(default )?(abstract )?(class|interface) \w`), 1},
	{regexp.MustCompile(`^(export )?(default )?(async )?function\*? ?\w`), 1},
}

// declFileTypes are the file types whose outline is their declarations
// (their code elements' languages have declPatterns).
var declFileTypes = map[string]bool{"go": true, "py": true, "rs": true, "js": true, "mjs": true, "cjs": true, "ts": true, "tsx": true, "jsx": true}

// outlineCategories are the elements a document outline reads of a file
// of fileType: headings, and a source file's code for its declarations.
func outlineCategories(fileType string) []dpe.Category {
	if declFileTypes[fileType] {
		return []dpe.Category{dpe.Heading, dpe.Code}
	}
	return []dpe.Category{dpe.Heading}
}

// maxDeclChars bounds a declaration's line in the outline.
const maxDeclChars = 80

// codeDecls returns the declarations of a page that is a source file's
// code (one code element of a language with declPatterns), in order.
func codeDecls(p *protocol.DPEPage) []heading {
	if len(p.Elements) != 1 || p.Elements[0].Category != string(dpe.Code) {
		return nil
	}
	e := p.Elements[0]
	lang, _ := e.Content["language"].(string)
	pats := declPatterns[lang]
	code, _ := e.Content["code"].(string)
	if len(pats) == 0 || code == "" {
		return nil
	}
	var out []heading
	for line := range strings.Lines(code) {
		for _, d := range pats {
			if !d.re.MatchString(line) {
				continue
			}
			text := strings.TrimSuffix(strings.TrimSpace(common.OneLine(line)), "{")
			if r := []rune(strings.TrimSpace(text)); len(r) > maxDeclChars {
				text = string(r[:maxDeclChars-1]) + "…"
			}
			out = append(out, heading{page: p.PageIndex, level: d.level, text: strings.TrimSpace(text), elementID: e.ElementID, decl: true})
			break
		}
	}
	return out
}

// pageHeadings returns the heading elements of a page, in order; on a
// page of source code, its declarations (functions, types, classes).
func pageHeadings(p *protocol.DPEPage) []heading {
	if decls := codeDecls(p); decls != nil {
		return decls
	}
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
		anchor, _ := e.Content["anchor"].(string)
		out = append(out, heading{page: p.PageIndex, level: min(max(lvl, 1), 6), text: text, elementID: e.ElementID, anchor: anchor})
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

// sectionNumber is a heading's number before its words: "7.1.1.6",
// "A.1", "Appendix A", "Chapter 3.", ...
var sectionNumber = regexp.MustCompile(`^(?:(?:appendix|chapter|section|part)\s+)?(?:[0-9]+|[a-z])(?:\.[0-9a-z]+)*\.?\s+`)

// titleKey is how a bookmark's title and a heading (or a rendered line)
// are compared: lower case, without the heading's #s, its section number
// (texinfo's bookmarks leave it out) and punctuation (a hyphen the PDF's
// text lost at a line break), words one space apart.
func titleKey(s string) string {
	s = strings.ToLower(strings.TrimLeftFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
	s = sectionNumber.ReplaceAllString(s, "")
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		case unicode.IsSpace(r):
			space = true
		}
	}
	return b.String()
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

// findAnchor returns the heading an #anchor names: by the heading's own
// id first (exactly, then ignoring case), then by the slug of its text,
// then by its text.
func findAnchor(hs []heading, anchor string) (heading, bool) {
	a := strings.TrimPrefix(anchor, "#")
	if u, err := url.PathUnescape(a); err == nil {
		a = u
	}
	for _, match := range []func(h heading) bool{
		func(h heading) bool { return h.anchor != "" && h.anchor == a },
		func(h heading) bool { return h.anchor != "" && strings.EqualFold(h.anchor, a) },
		func(h heading) bool { return slug(h.text) == strings.ToLower(a) },
		func(h heading) bool { return strings.EqualFold(h.text, a) },
	} {
		for _, h := range hs {
			if match(h) {
				return h, true
			}
		}
	}
	return heading{}, false
}

// maxOutlinePages bounds the pages a document outline reads.
const maxOutlinePages = 500

// outlineConcurrency bounds the parallel reads of a document outline.
const outlineConcurrency = 4

// maxBookmarkPages bounds the page index a bookmark outline reads
// (dpe.MaxLimit pages a read, no page itself).
const maxBookmarkPages = 20_000

// docOutlineMsg carries a document's outline.
type docOutlineMsg struct {
	owner     any
	doc       string // the document URI it is of
	headings  []heading
	titles    []string // page titles, by index
	truncated bool     // the document has more pages than were read
	pagesRead int      // how many, when truncated
	bookmarks bool     // the headings are the document's own bookmarks
	err       error
}

// docOutlineCmd reads the headings of every page of doc (at most
// maxOutlinePages) and the page titles.
func docOutlineCmd(c *common.Common, owner any, comp string, doc dpe.URI, pages int, fileType string) tea.Cmd {
	return outlineMsgCmd(c, owner, doc, false, func(ctx context.Context, b common.Backend) (outline, error) {
		return readOutline(ctx, b, comp, doc, pages, outlineCategories(fileType), nil)
	})
}

// docBookmarksCmd reads the bookmarks of doc (a PDF's own outline) and its
// page titles from its page index, reading no page.
func docBookmarksCmd(c *common.Common, owner any, comp string, doc dpe.URI, pages int) tea.Cmd {
	return outlineMsgCmd(c, owner, doc, true, func(ctx context.Context, b common.Backend) (outline, error) {
		return readBookmarks(ctx, b, comp, doc, pages)
	})
}

// outlineMsgCmd runs an outline read and delivers it as a docOutlineMsg.
func outlineMsgCmd(c *common.Common, owner any, doc dpe.URI, bookmarks bool, read func(context.Context, common.Backend) (outline, error)) tea.Cmd {
	return common.Call(c, func(ctx context.Context, b common.Backend) (docOutlineMsg, error) {
		o, err := read(ctx, b)
		return docOutlineMsg{doc: doc.String(), headings: o.headings, titles: o.titles, truncated: o.truncated,
			pagesRead: len(o.titles), bookmarks: bookmarks}, err
	}, func(m docOutlineMsg, err error) tea.Msg {
		m.owner, m.err = owner, err
		return m
	})
}

// readBookmarks reads doc's page index (depth=pages, dpe.MaxLimit pages a
// read, at most maxBookmarkPages) for its pages' titles and the bookmarks
// each lists, in page order; pages is the page count.
func readBookmarks(ctx context.Context, b common.Backend, comp string, doc dpe.URI, pages int) (outline, error) {
	n := min(pages, maxBookmarkPages)
	out := outline{truncated: pages > n}
	for off := 0; off < n; off += dpe.MaxLimit {
		lim := min(dpe.MaxLimit, n-off)
		d, err := b.ReadDocument(ctx, comp, doc.WithQuery(dpe.Query{Depth: dpe.DepthPages, Offset: &off, Limit: &lim}))
		if err != nil {
			return out, err
		}
		d = common.SanitizeDocument(d)
		for _, p := range d.Pages {
			if p.PageIndex != len(out.titles) {
				continue // not the page expected next: a window that overlaps
			}
			out.titles = append(out.titles, common.OneLine(p.Title))
			for _, m := range p.Bookmarks {
				if t := common.OneLine(m.Title); t != "" {
					out.headings = append(out.headings, heading{page: p.PageIndex, level: min(max(m.Level, 1), maxOutlineDepth), text: t})
				}
			}
		}
		if len(d.Pages) < lim {
			break // the document ended early
		}
	}
	return out, nil
}

// maxOutlineDepth bounds the indentation of a bookmark outline.
const maxOutlineDepth = 16

// outline is what readOutline read of a document.
type outline struct {
	headings  []heading
	titles    []string // page titles, by index
	truncated bool     // the document has more pages than were read
}

// readOutline reads the headings and titles of doc's pages in order
// (pages/N with categories=heading), outlineConcurrency pages at a time,
// at most maxOutlinePages; pages is the page count, 0 when unknown (then
// it reads until a page is out of range). enough, when not nil, is asked
// after each batch with the headings read so far: true ends the read
// there (a link's target is found).
func readOutline(ctx context.Context, b common.Backend, comp string, doc dpe.URI, pages int, cats []dpe.Category, enough func([]heading) bool) (outline, error) {
	n := maxOutlinePages
	if pages > 0 {
		n = min(pages, maxOutlinePages)
	}
	out := outline{truncated: pages > n}
	for start := 0; start < n; start += outlineConcurrency {
		end := min(start+outlineConcurrency, n)
		pgs := make([]*protocol.DPEPage, end-start)
		errs := make([]error, end-start)
		var wg sync.WaitGroup
		for i := start; i < end; i++ {
			wg.Go(func() {
				u := dpe.Page(doc.Host, doc.DocRef, i).WithQuery(dpe.Query{Categories: cats})
				pgs[i-start], errs[i-start] = b.ReadPage(ctx, comp, u)
			})
		}
		wg.Wait()
		for k, err := range errs {
			if protocol.CodeOf(err) == protocol.CodePageOutOfRange {
				return out, nil
			}
			if err != nil {
				return out, err
			}
			p := common.SanitizePage(pgs[k])
			p.PageIndex = start + k
			out.titles = append(out.titles, common.OneLine(p.Title))
			out.headings = append(out.headings, pageHeadings(p)...)
		}
		if enough != nil && enough(out.headings) {
			return out, nil
		}
	}
	return out, nil
}

// documentOutlineItems lays a document outline out: for a document of
// several pages, each page's title (when its first heading does not say
// it) then the page's headings, indented by level (a bookmark outline has
// only its bookmarks); targets gives each row's page and heading (no
// element ID for a page's own row or a bookmark).
func documentOutlineItems(m docOutlineMsg) (items []picker.Item, targets []heading) {
	byPage := map[int][]heading{}
	top := 6
	for _, h := range m.headings {
		byPage[h.page] = append(byPage[h.page], h)
		top = min(top, h.level)
	}
	multi := len(m.titles) > 1 && !m.bookmarks // bookmarks: only they are rows
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

// sectionRow returns the last row of a page at or before p among targets
// (the section page p is in), -1 for none.
func sectionRow(targets []heading, p int) int {
	return sort.Search(len(targets), func(i int) bool { return targets[i].page > p }) - 1
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
