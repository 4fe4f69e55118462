package extract

import (
	"context"
	"errors"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// A PDF's links are annotations over its text: a rectangle and either a
// destination in the document (GoTo: a contents page's entries, a
// cross-reference) or an action naming a URI. They are read from the
// annotations, not guessed from the text, and served as link elements:
// an internal link's url is "#page=N" (the 1-based page, as PDF viewers
// take it after a file name) and its "target_page" the 0-based index,
// which the document server turns into the page's dpe:// URI; a URI
// link's url is the annotation's, whole even where the text wraps it
// over two lines.

// Bounds of a page's link read: a hostile file can hold any number of
// annotations, and URIs of any length.
const (
	maxLinksPerPage = 2000
	maxLinkURI      = 4096 // bytes
	maxLinkText     = 512  // UTF-16 units of a link's anchor text
)

// Scratch offsets of FPDFLink_Enumerate's out-parameters (free while
// links are read: the per-character offsets are not in use).
const (
	offLinkPos  = offOrigin     // int: the enumeration's position
	offLinkOut  = offOrigin + 8 // FPDF_LINK
	offLinkText = offText       // a URI, or an anchor text
)

// PDFium's action types (FPDFAction_GetType).
const (
	pdfActionGoTo = 1
	pdfActionURI  = 3
)

// pdfLink is one link annotation of a page.
type pdfLink struct {
	rect box
	page int    // the 0-based target page of an internal link, -1 for none
	uri  string // the URI of a URI action
	text string // the page's text under the rectangle
}

// pageLinks reads the link annotations of a loaded page (before any
// flattening), in the order PDFium enumerates them.
func (d *pdfDoc) pageLinks(ctx context.Context, page uint64) ([]pdfLink, error) {
	e := d.e
	mem := e.mod.Memory()
	if !mem.WriteUint32Le(e.scratch+offLinkPos, 0) {
		return nil, e.fail(errors.New("pdf engine: write outside its memory"))
	}
	var out []pdfLink
	for len(out) < maxLinksPerPage {
		ok, err := e.call(ctx, "FPDFLink_Enumerate", page, uint64(e.scratch+offLinkPos), uint64(e.scratch+offLinkOut))
		if err != nil {
			return nil, err
		}
		if uint32(ok) == 0 {
			break
		}
		link, _ := mem.ReadUint32Le(e.scratch + offLinkOut)
		if link == 0 {
			continue
		}
		l, keep, err := d.readLink(ctx, uint64(link))
		if err != nil {
			return nil, err
		}
		if keep {
			out = append(out, l)
		}
	}
	return out, nil
}

// readLink reads one link's rectangle and target; keep is false for a
// link that leads nowhere this reader can follow.
func (d *pdfDoc) readLink(ctx context.Context, link uint64) (pdfLink, bool, error) {
	e := d.e
	l := pdfLink{page: -1}
	ok, err := e.call(ctx, "FPDFLink_GetAnnotRect", link, uint64(e.scratch+offRect))
	if err != nil || uint32(ok) == 0 {
		return l, false, err
	}
	// FS_RECTF: left, top, right, bottom
	l.rect = normBox(e.f32(offRect), e.f32(offRect+12), e.f32(offRect+8), e.f32(offRect+4))
	dest, err := e.call(ctx, "FPDFLink_GetDest", d.doc, link)
	if err != nil {
		return l, false, err
	}
	if dest == 0 {
		action, err := e.call(ctx, "FPDFLink_GetAction", link)
		if err != nil || action == 0 {
			return l, false, err
		}
		switch typ, err := e.callInt(ctx, "FPDFAction_GetType", action); {
		case err != nil:
			return l, false, err
		case typ == pdfActionGoTo:
			if dest, err = e.call(ctx, "FPDFAction_GetDest", d.doc, action); err != nil {
				return l, false, err
			}
		case typ == pdfActionURI:
			l.uri, err = d.actionURI(ctx, action)
			return l, l.uri != "", err
		}
	}
	if dest == 0 {
		return l, false, nil
	}
	if l.page, err = e.callInt(ctx, "FPDFDest_GetDestPageIndex", d.doc, dest); err != nil {
		return l, false, err
	}
	return l, l.page >= 0, nil
}

// actionURI is the URI of a URI action (7-bit ASCII in PDFium's answer),
// cleaned; "" when it is empty or too long.
func (d *pdfDoc) actionURI(ctx context.Context, action uint64) (string, error) {
	e := d.e
	if err := e.grow(ctx, offLinkText+maxLinkURI); err != nil {
		return "", err
	}
	n, err := e.call(ctx, "FPDFAction_GetURIPath", d.doc, action, uint64(e.scratch+offLinkText), maxLinkURI)
	if err != nil || n <= 1 || n > maxLinkURI {
		return "", err
	}
	b, err := e.read(e.scratch+offLinkText, uint32(n)-1)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(clean(string(b))), nil
}

// linkTexts fills in each link's anchor text: the page's text under its
// rectangle (FPDFText_GetBoundedText on the text page tp).
func (d *pdfDoc) linkTexts(ctx context.Context, tp uint64, links []pdfLink) error {
	e := d.e
	if len(links) == 0 {
		return nil
	}
	if err := e.grow(ctx, offLinkText+2*(maxLinkText+1)); err != nil {
		return err
	}
	for i := range links {
		r := links[i].rect
		n, err := e.callInt(ctx, "FPDFText_GetBoundedText", tp,
			math.Float64bits(r.left), math.Float64bits(r.top), math.Float64bits(r.right), math.Float64bits(r.bottom),
			uint64(e.scratch+offLinkText), maxLinkText)
		if err != nil {
			return err
		}
		if n <= 0 {
			continue
		}
		b, err := e.read(e.scratch+offLinkText, uint32(2*min(n, maxLinkText)))
		if err != nil {
			return err
		}
		links[i].text = collapse(clean(strings.TrimRight(decodeUTF16(b), "\x00")))
	}
	return nil
}

// target is the link's url as served by the extractor.
func (l pdfLink) target() string {
	if l.page >= 0 {
		return "#page=" + strconv.Itoa(l.page+1)
	}
	return l.uri
}

// mergeLinks sorts a page's links in reading order (top to bottom, left
// to right) and joins the pieces of one URI link (a URL wrapped over two
// lines is two annotations with one URI, one after the other). Internal
// links are never joined: two entries of a contents page may point to
// one page.
func mergeLinks(links []pdfLink) []pdfLink {
	sort.SliceStable(links, func(i, j int) bool {
		a, b := links[i].rect, links[j].rect
		if math.Abs(a.top-b.top) > 2 {
			return a.top > b.top
		}
		return a.left < b.left
	})
	var out []pdfLink
	for _, l := range links {
		if n := len(out); n > 0 && l.uri != "" && out[n-1].uri == l.uri && nextLine(out[n-1].rect, l.rect) {
			prev := &out[n-1]
			switch joined := prev.text + l.text; {
			case l.uri != "" && strings.Contains(l.uri, joined):
				prev.text = joined
			case l.text != "":
				prev.text = strings.TrimSpace(prev.text + " " + l.text)
			}
			prev.rect = union(prev.rect, l.rect)
			continue
		}
		out = append(out, l)
	}
	for i, l := range out {
		// A URL shown as its own text is the URL, whole: the rectangle
		// of its last piece may miss a glyph at its edge.
		if t := strings.ReplaceAll(l.text, " ", ""); l.uri != "" && t != "" && 2*len(t) >= len(l.uri) && strings.HasPrefix(l.uri, t) {
			out[i].text = l.uri
		}
	}
	return out
}

// labelLinks names a link whose text is only a page number (a contents
// entry of texinfo or LaTeX links its number: "2", "iv") after the line
// it is on, without leader dots: "Introduction 2". A picker of links
// shows the entries apart.
func labelLinks(lines []pdfLine, links []pdfLink) []pdfLink {
	for i, l := range links {
		if !pageNumber.MatchString(l.text) {
			continue
		}
		for _, ln := range lines {
			if ln.y >= l.rect.bottom-1 && ln.y <= l.rect.top+1 {
				if t := collapse(leaderRun.ReplaceAllString(ln.text, " ")); t != l.text && strings.Contains(t, l.text) {
					links[i].text = t
				}
				break
			}
		}
	}
	return links
}

// pageNumber matches a page number in digits or roman numerals.
var pageNumber = regexp.MustCompile(`^(\d{1,5}|[ivxlcdm]{1,8}|[IVXLCDM]{1,8})$`)

// leaderRun matches the leader dots of a contents entry.
var leaderRun = regexp.MustCompile(`(\s*\.){3,}\s*`)

// nextLine reports whether box b is on the line of box a, after it, or
// on the line below.
func nextLine(a, b box) bool {
	h := math.Max(a.height(), 1)
	return b.top <= a.top+0.5*h && b.top >= a.bottom-1.5*h
}

// placeLinks adds a page's links to its laid-out elements: a URI the
// text wrapped over two lines is made whole again in the text, and each
// link goes right after the element holding its anchor text, as shown
// within it (its text is already there); a link whose text is in no
// element (a link over a picture) goes at the end of the page, shown
// within the last element: the page's text shows what the PDF shows,
// and the link is there to follow.
func placeLinks(els []Element, links []pdfLink) []Element {
	if len(links) == 0 {
		return els
	}
	for _, l := range links {
		if l.uri != "" {
			unwrapURI(els, l.uri)
		}
	}
	shown := make([]string, len(els)) // as link texts are: collapsed, no leader dots
	for i, e := range els {
		shown[i] = collapse(leaderRun.ReplaceAllString(shownText(e), " "))
	}
	after := make([][]Element, len(els))
	var tail []Element
	from := 0
	for _, l := range links {
		el := Element{Category: dpe.Link, Content: map[string]any{"text": l.text, "url": l.target(), "within": withinPrevious}}
		if l.page >= 0 {
			el.Content["target_page"] = l.page
		}
		if l.text == "" {
			tail = append(tail, el) // no text under it: a client labels it by its url
			continue
		}
		j := holder(shown, l.text, from)
		if j < 0 {
			j = holder(shown, l.text, 0)
		}
		if j < 0 {
			tail = append(tail, el)
			continue
		}
		after[j] = append(after[j], el)
		from = j
	}
	out := make([]Element, 0, len(els)+len(links))
	for i, e := range els {
		out = append(out, e)
		out = append(out, after[i]...)
	}
	return append(out, tail...)
}

// holder is the index of the first of the elements' shown texts from
// from on that holds s, -1 for none.
func holder(shown []string, s string, from int) int {
	for j := from; j < len(shown); j++ {
		if strings.Contains(shown[j], s) {
			return j
		}
	}
	return -1
}

// shownText is the text an element shows: its text, code, list items
// or table cells.
func shownText(e Element) string {
	switch v := e.Content["text"].(type) {
	case string:
		return v
	}
	var parts []string
	switch v := e.Content["items"].(type) {
	case []string:
		parts = append(parts, v...)
	}
	switch v := e.Content["rows"].(type) {
	case [][]string:
		for _, r := range v {
			parts = append(parts, r...)
		}
	}
	if c, ok := e.Content["code"].(string); ok {
		parts = append(parts, c)
	}
	return strings.Join(parts, " ")
}

// unwrapURI joins uri where a text or list item of els has it split by a
// line's end ("https://example.com/a/ b/c" for "https://example.com/a/b/c").
func unwrapURI(els []Element, uri string) {
	fix := func(s string) string {
		if strings.Contains(s, uri) {
			return s
		}
		for k := len(uri) - 1; k > 0; k-- {
			for _, sep := range []string{" ", "\n"} {
				if split := uri[:k] + sep + uri[k:]; strings.Contains(s, split) {
					return strings.Replace(s, split, uri, 1)
				}
			}
		}
		return s
	}
	for i := range els {
		switch v := els[i].Content["text"].(type) {
		case string:
			els[i].Content["text"] = fix(v)
		}
		if items, ok := els[i].Content["items"].([]string); ok {
			for k := range items {
				items[k] = fix(items[k])
			}
		}
	}
}
