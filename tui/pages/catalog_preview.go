package pages

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/shorten"
	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
)

// catalogPreview is the pane beside a wide catalog: the highlighted
// document's summary, keywords, path and first page titles. The page titles
// are read once the cursor rests (previewDelay) and kept for the last
// previewCacheSize documents.
type catalogPreview struct {
	c     *common.Common
	comp  string
	cache map[string]*previewEntry
	order []string
	seq   int    // bumped by every move; older timers are stale
	req   uint64 // the read in flight
	uri   string // the document last asked for
	memo  [2]string
}

type previewEntry struct {
	doc *protocol.DPEDocument
	err string
}

type previewTickMsg struct {
	owner *catalogPreview
	seq   int
}

type previewMsg struct {
	req uint64
	uri string
	doc *protocol.DPEDocument
	err error
}

func newCatalogPreview(c *common.Common, comp string) catalogPreview {
	return catalogPreview{c: c, comp: comp, cache: map[string]*previewEntry{}}
}

// clear forgets what was read (the catalog changed).
func (p *catalogPreview) clear() {
	p.cache, p.order = map[string]*previewEntry{}, nil
	p.uri = ""
}

// want schedules the read of d's page titles after the cursor rests.
func (p *catalogPreview) want(d protocol.DPEDocumentSummary) tea.Cmd {
	if d.URI == p.uri {
		return nil
	}
	p.uri = d.URI
	if _, ok := p.cache[d.URI]; ok {
		return nil
	}
	p.seq++
	seq := p.seq
	return p.c.Tick(p.c.PreviewDelay, func(time.Time) tea.Msg { return previewTickMsg{owner: p, seq: seq} })
}

// update handles the preview's timer and answers; sel is the highlighted
// document when the timer fires.
func (p *catalogPreview) update(msg tea.Msg, sel func() (protocol.DPEDocumentSummary, bool)) tea.Cmd {
	switch msg := msg.(type) {
	case previewTickMsg:
		if msg.owner == p && msg.seq == p.seq {
			if d, ok := sel(); ok {
				return p.readCmd(d.URI)
			}
		}
	case previewMsg:
		if msg.req != p.req {
			return nil
		}
		p.req = 0
		ent := &previewEntry{doc: msg.doc}
		if msg.err != nil {
			ent = &previewEntry{err: common.DescribeError(msg.err, common.OpDocument)}
		}
		p.store(msg.uri, ent)
	}
	return nil
}

// readCmd reads the first page titles of the document at uri.
func (p *catalogPreview) readCmd(uri string) tea.Cmd {
	if _, ok := p.cache[uri]; ok {
		return nil
	}
	req := p.c.Req()
	p.req = req
	comp := p.comp
	return common.Call(p.c, func(ctx context.Context, b common.Backend) (*protocol.DPEDocument, error) {
		u, err := documentPagesURI(uri, 0, previewPages)
		if err != nil {
			return nil, err
		}
		doc, err := b.ReadDocument(ctx, comp, u)
		if doc != nil {
			doc = common.SanitizeDocument(doc)
		}
		return doc, err
	}, func(doc *protocol.DPEDocument, err error) tea.Msg {
		return previewMsg{req: req, uri: uri, doc: doc, err: err}
	})
}

// documentPagesURI is the document URI of raw (any level) asking for the
// page index window [offset, offset+limit).
func documentPagesURI(raw string, offset, limit int) (dpe.URI, error) {
	u, err := dpe.Parse(raw)
	if err != nil {
		return dpe.URI{}, err
	}
	return u.DocumentURI().WithQuery(dpe.Query{Depth: dpe.DepthPages, Offset: &offset, Limit: &limit}), nil
}

func (p *catalogPreview) store(uri string, ent *previewEntry) {
	if _, ok := p.cache[uri]; !ok {
		p.order = append(p.order, uri)
	}
	p.cache[uri] = ent
	for len(p.order) > previewCacheSize {
		delete(p.cache, p.order[0])
		p.order = p.order[1:]
	}
}

// view memoizes the pane for the highlighted document d.
func (p *catalogPreview) view(d protocol.DPEDocumentSummary, ok bool, w, h int, stamp string) string {
	key := common.Itoa(w) + "x" + common.Itoa(h) + "|" + stamp
	if ok {
		key += "|" + d.URI + "|" + fingerprint(d)
		if ent, ok := p.cache[d.URI]; ok {
			key += fmt.Sprintf("|%p", ent)
		}
	}
	if p.memo[0] == key {
		return p.memo[1]
	}
	v := p.draw(d, ok, w, h)
	p.memo = [2]string{key, v}
	return v
}

// draw lays out the pane.
func (p *catalogPreview) draw(d protocol.DPEDocumentSummary, ok bool, w, h int) string {
	st := p.c.Styles
	inner := max(w-4, 10)
	var lines []string
	if !ok {
		lines = append(lines, st.Muted.Render("no document selected"))
	} else {
		lines = append(lines, common.WrapStyledLines(st.Title, common.OneLine(d.Title), inner, 2)...)
		pages := common.Count(d.PageCount, "page")
		if d.Pending && d.Unreadable == "" {
			pages = "being read"
		}
		lines = append(lines, st.Muted.Render(common.Cell(strings.ToUpper(common.OneLine(d.FileType))+" · "+pages+" · "+common.RelTime(common.ParseTime(d.LastModified), p.c.Now()), inner)))
		if d.Path != "" {
			lines = append(lines, st.Muted.Render(common.Cell("path "+shorten.Path(common.OneLine(d.Path), inner-5), inner)))
		}
		if d.Unreadable != "" {
			lines = append(lines, common.WrapStyledLines(st.Error, "✗ cannot be read: "+common.OneLine(d.Unreadable), inner, 3)...)
		}
		if d.Truncated != "" {
			lines = append(lines, common.WrapStyledLines(st.Warning, "✂ cut short: "+common.OneLine(d.Truncated), inner, 2)...)
		}
		if len(d.Keywords) > 0 {
			lines = append(lines, common.KeywordLines(st.Keyword, d.Keywords, inner, 2)...)
		}
		if d.Summary != "" && !saysWhyUnreadable(d.Summary, d.Unreadable) {
			lines = append(lines, "")
			lines = append(lines, common.WrapText(common.OneLine(d.Summary), inner, 5)...)
		}
		lines = append(lines, "")
		switch ent, ok := p.cache[d.URI]; {
		case !ok:
			lines = append(lines, st.Muted.Render("loading pages…"))
		case ent.err != "":
			lines = append(lines, st.Error.Render(common.Cell("✗ "+ent.err, inner)))
		default:
			lines = append(lines, st.Label.Render("Pages"))
			for _, pg := range ent.doc.Pages {
				lines = append(lines, common.Cell(common.CellLeft(common.Itoa(pg.PageIndex+1), 3)+"  "+common.OneLine(pg.Title), inner))
			}
			if t := ent.doc.PageTotal; t != nil && *t > len(ent.doc.Pages) {
				lines = append(lines, st.Muted.Render("     … "+common.Itoa(*t-len(ent.doc.Pages))+" more"))
			}
		}
	}
	return st.Pane.Width(w).Height(h).MaxHeight(h).Render(strings.Join(common.PadLines(lines, max(h-2, 1)), "\n"))
}
