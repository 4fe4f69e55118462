package pages

import (
	"context"
	"errors"
	"html"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
)

// docInfo is what a page knows of its document: its URI and what relative
// links resolve against.
type docInfo struct {
	uri     dpe.URI // Level 1
	title   string
	path    string // relative to its document server's folder, '/'-separated ("" unknown)
	fileURI string
	pages   int    // 0 when unknown
	cut     string // what cut the document short, with how much is served ("" for a whole one)
}

// docInfoOf describes a catalog entry.
func docInfoOf(d protocol.DPEDocumentSummary) (docInfo, error) {
	u, err := dpe.Parse(d.URI)
	if err != nil {
		return docInfo{}, err
	}
	return docInfo{uri: u.DocumentURI(), title: d.Title, path: d.Path, fileURI: d.FileURI, pages: d.PageCount, cut: d.Truncated}, nil
}

// pageLink is a link found on a page.
type pageLink struct {
	text, url string
	elementID string
}

// pageLinks returns the links of a page in order: link elements, and the
// inline links of elements that carry a Markdown form.
func pageLinks(p *protocol.DPEPage) []pageLink {
	var out []pageLink
	seen := map[string]bool{}
	add := func(l pageLink) {
		if l.url == "" || seen[l.text+"\x00"+l.url] {
			return
		}
		seen[l.text+"\x00"+l.url] = true
		if l.text == "" {
			l.text = l.url
		}
		out = append(out, l)
	}
	for _, e := range p.Elements {
		if e.Category == string(dpe.Link) {
			u, _ := e.Content["url"].(string)
			t, _ := e.Content["text"].(string)
			add(pageLink{text: common.OneLine(t), url: strings.TrimSpace(u), elementID: e.ElementID})
		}
		for _, md := range markdownForms(e.Content) {
			for _, l := range markdownLinks(md) {
				l.elementID = e.ElementID
				add(l)
			}
		}
	}
	return out
}

// markdownForms returns an element's rich Markdown forms: a text's
// markdown, a list's items_markdown, a table's headers_markdown and
// rows_markdown (see dpe).
func markdownForms(c map[string]any) []string {
	var out []string
	var add func(v any)
	add = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, x := range v {
				add(x)
			}
		case []string:
			out = append(out, v...)
		case [][]string:
			for _, r := range v {
				out = append(out, r...)
			}
		}
	}
	for _, k := range []string{"markdown", "items_markdown", "headers_markdown", "rows_markdown"} {
		add(c[k])
	}
	return out
}

// markdownLinks returns the links, images and autolinks of inline
// Markdown, as a CommonMark parser reads them: an escaped bracket
// ("\\[[Go 1.xx](#x)\\]") is text, not part of the link.
func markdownLinks(md string) []pageLink {
	src := []byte(md)
	doc := goldmark.DefaultParser().Parse(text.NewReader(src))
	var out []pageLink
	_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if !entering {
			return gast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *gast.Link:
			out = append(out, pageLink{text: common.OneLine(plainText(n, src)), url: string(util.UnescapePunctuations(n.Destination))})
			return gast.WalkSkipChildren, nil
		case *gast.Image:
			out = append(out, pageLink{text: common.OneLine(plainText(n, src)), url: string(util.UnescapePunctuations(n.Destination))})
			return gast.WalkSkipChildren, nil
		case *gast.AutoLink:
			out = append(out, pageLink{text: string(n.Label(src)), url: string(n.URL(src))})
			return gast.WalkSkipChildren, nil
		}
		return gast.WalkContinue, nil
	})
	return out
}

// plainText is the text of a Markdown node's descendants without markup
// (so a link's text in an element's Markdown form matches the same link's
// link element).
func plainText(root gast.Node, src []byte) string {
	var b strings.Builder
	_ = gast.Walk(root, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if !entering {
			return gast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *gast.CodeSpan:
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*gast.Text); ok {
					b.Write(t.Segment.Value(src)) // code is literal
				}
			}
			return gast.WalkSkipChildren, nil
		case *gast.Text:
			b.Write(util.UnescapePunctuations(n.Segment.Value(src)))
			if n.SoftLineBreak() || n.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *gast.String:
			b.Write(n.Value)
		case *gast.AutoLink:
			b.Write(n.Label(src))
			return gast.WalkSkipChildren, nil
		case *gast.RawHTML:
			return gast.WalkSkipChildren, nil
		}
		return gast.WalkContinue, nil
	})
	return html.UnescapeString(b.String())
}

// linkKind classifies a link's destination.
type linkKind int

const (
	linkAnchor   linkKind = iota // #heading on the same document
	linkDPE                      // a dpe:// URI
	linkFile                     // a path relative to the document, or file://
	linkExternal                 // anything else with a scheme (https, mailto, ...)
)

func classifyLink(raw string) linkKind {
	switch {
	case strings.HasPrefix(raw, "#"):
		return linkAnchor
	case dpe.IsDPE(raw):
		return linkDPE
	case strings.HasPrefix(strings.ToLower(raw), "file:"):
		return linkFile
	}
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
		return linkExternal
	}
	return linkFile
}

// followCmd follows a link found in document from, in computer comp: a
// dpe:// URI opens that document, page or element; a relative path (or
// file://) is resolved against the document's folder and looked up in the
// catalog; #anchor opens the page of that heading; any other URL is opened
// with the browser (or copied when there is none).
func followCmd(c *common.Common, comp string, from docInfo, raw string) tea.Cmd {
	raw = strings.TrimSpace(raw)
	if classifyLink(raw) == linkExternal {
		return openExternalCmd(c, raw)
	}
	return common.Call(c, func(ctx context.Context, b common.Backend) (common.FollowedMsg, error) {
		return resolveLink(ctx, c, b, comp, from, raw)
	}, func(m common.FollowedMsg, err error) tea.Msg {
		if err != nil {
			return common.FollowedMsg{Notice: "cannot follow " + common.OneLine(raw) + ": " + common.DescribeError(err, common.OpDocument)}
		}
		return m
	})
}

// resolveLink finds what a link inside the Computer points to.
func resolveLink(ctx context.Context, c *common.Common, b common.Backend, comp string, from docInfo, raw string) (common.FollowedMsg, error) {
	target, anchor := from, ""
	switch classifyLink(raw) {
	case linkAnchor:
		anchor = strings.TrimPrefix(raw, "#")
	case linkDPE:
		u, err := dpe.Parse(raw)
		if err != nil {
			return common.FollowedMsg{}, err
		}
		doc, err := b.ReadDocument(ctx, comp, u.DocumentURI())
		if err != nil {
			return common.FollowedMsg{}, err
		}
		info := docInfo{uri: u.DocumentURI(), title: common.OneLine(doc.Title), fileURI: doc.FileURI, pages: doc.PageCount, cut: common.Sanitize(doc.Truncated)}
		switch u.Level() {
		case dpe.LevelDocument:
			sum := common.SanitizeSummary(doc.CatalogEntry(""))
			return common.FollowedMsg{Screen: NewDocument(c, comp, sum)}, nil
		case dpe.LevelPage:
			return common.FollowedMsg{Screen: newPageScreen(c, comp, info, u.Page)}, nil
		case dpe.LevelElement:
			return common.FollowedMsg{Screen: newElementScreen(c, comp, info, protocol.DPEElementDetail{ElementID: u.ElementID})}, nil
		}
		return common.FollowedMsg{}, protocol.Errorf(protocol.CodeInvalidDPEURI, "%s is a catalog, not a document", raw)
	default:
		ref, frag, _ := strings.Cut(raw, "#")
		anchor = frag
		found, err := findLinkedDocument(ctx, b, comp, from, ref)
		if err != nil {
			return common.FollowedMsg{}, err
		}
		target = found
	}
	index, elementID := 0, ""
	if anchor != "" {
		// The heading's own id ends the read early: go_spec.html's 500
		// links name ids.
		o, err := readOutline(ctx, b, comp, target.uri, target.pages, []dpe.Category{dpe.Heading}, func(hs []heading) bool {
			h, ok := findAnchor(hs, anchor)
			return ok && h.anchor != ""
		})
		if err != nil {
			return common.FollowedMsg{}, err
		}
		h, ok := findAnchor(o.headings, anchor)
		if !ok {
			return common.FollowedMsg{Notice: "no heading #" + common.OneLine(anchor) + " in " + common.OneLine(target.title)}, nil
		}
		index, elementID = h.page, h.elementID
	}
	p := newPageScreen(c, comp, target, index)
	p.jumpTo = elementID
	return common.FollowedMsg{Screen: p}, nil
}

// errNotInCatalog is the error of a relative link to a file the Computer
// does not serve.
var errNotInCatalog = errors.New("not a document of this computer")

// maxLinkScan bounds the catalog rows read to find a linked file.
const maxLinkScan = 5000

// findLinkedDocument resolves ref (a relative path or a file:// URI)
// against from's folder and finds that document in the catalog: by its
// path when the Computer reports paths, else by its file:// URI.
func findLinkedDocument(ctx context.Context, b common.Backend, comp string, from docInfo, ref string) (docInfo, error) {
	wantPath, wantFile := "", ""
	if strings.HasPrefix(strings.ToLower(ref), "file:") {
		u, err := url.Parse(ref)
		if err != nil {
			return docInfo{}, err
		}
		wantFile = path.Clean(u.Path)
	} else {
		rel, err := url.PathUnescape(ref)
		if err != nil {
			rel = ref
		}
		if from.path != "" && !strings.HasPrefix(rel, "/") {
			wantPath = path.Clean(path.Join(path.Dir(from.path), rel))
		}
		if fu, err := url.Parse(from.fileURI); err == nil && fu.Scheme == "file" {
			if strings.HasPrefix(rel, "/") {
				wantFile = path.Clean(rel)
			} else {
				wantFile = path.Clean(path.Join(path.Dir(fu.Path), rel))
			}
		}
	}
	if wantPath == "" && wantFile == "" {
		return docInfo{}, errors.New(ref + ": " + errNotInCatalog.Error() + " (its document has no path to resolve it against)")
	}
	match := func(d protocol.DPEDocumentSummary) bool {
		if wantPath != "" && d.Path != "" {
			return d.Path == wantPath
		}
		if wantFile != "" {
			if fu, err := url.Parse(d.FileURI); err == nil && fu.Scheme == "file" {
				return path.Clean(fu.Path) == wantFile
			}
		}
		return false
	}
	name := path.Base(wantPath)
	if wantPath == "" {
		name = path.Base(wantFile)
	}
	// First the documents whose path (or title) mentions the file's name,
	// then the whole catalog, a bounded number of rows.
	for _, kws := range [][]string{{strings.TrimSuffix(name, filepath.Ext(name))}, nil} {
		for off := 0; off < maxLinkScan; off += 100 {
			ret, err := b.GetFinder(ctx, comp, protocol.FinderQuery{Keywords: kws, MatchAll: true, Offset: off, Limit: 100})
			if err != nil {
				return docInfo{}, err
			}
			if i := slices.IndexFunc(ret.Documents, match); i >= 0 {
				return docInfoOf(common.SanitizeSummary(ret.Documents[i]))
			}
			if len(ret.Documents) < 100 || off+len(ret.Documents) >= ret.TotalCount {
				break
			}
		}
	}
	shown := wantPath
	if shown == "" {
		shown = wantFile
	}
	return docInfo{}, errors.New(shown + ": " + errNotInCatalog.Error())
}

// openExternalCmd opens url with Options.Browser, else xdg-open or open;
// when none works the link is copied instead, and the notice says which.
func openExternalCmd(c *common.Common, raw string) tea.Cmd {
	sys, browser := c.Sys, c.Opts.Browser
	copyIt := c.CopyCmd(raw)
	return func() tea.Msg {
		var cands [][]string
		if f := strings.Fields(browser); len(f) > 0 {
			cands = append(cands, f)
		}
		cands = append(cands, []string{"xdg-open"}, []string{"open"})
		var tried []string
		for _, cand := range cands {
			p, err := sys.LookPath(cand[0])
			if err != nil {
				continue
			}
			if err := sys.Start(p, append(cand[1:], raw)); err != nil {
				tried = append(tried, cand[0]+": "+err.Error())
				continue
			}
			return common.NoticeMsg("opened " + raw + " with " + cand[0])
		}
		why := "no browser found ($BROWSER, xdg-open, open)"
		if len(tried) > 0 {
			why = strings.Join(tried, "; ")
		}
		m := copyIt().(common.CopiedMsg)
		m.Text = why + "; " + m.Text
		return m
	}
}
