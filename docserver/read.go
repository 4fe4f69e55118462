package docserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/rpcerr"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// catalogDefaultLimit bounds a Level 0 read without limit: a catalog entry
// needs page_count, so each entry costs a parse (cached afterwards).
const catalogDefaultLimit = dpe.MaxLimit

// MIME types of the three formats.
const (
	mimeJSON     = "application/json"
	mimeMarkdown = "text/markdown"
	mimeText     = "text/plain"
)

// readResource answers resources/read for every level.
func (s *Server) readResource(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	s.text.reading.Add(1) // the index build gives way
	defer s.text.reading.Add(-1)
	raw := req.Params.URI
	u, err := dpe.Parse(raw)
	if err != nil {
		return nil, err // a *protocol.Error with code 4204 and {uri, rule}
	}
	if u.Host != s.host {
		return nil, &rpcerr.Error{Code: mcp.RESOURCE_NOT_FOUND, Message: fmt.Sprintf("host %q is not served here (this server is %q)", u.Host, s.host),
			Data: map[string]any{"uri": raw}}
	}
	var v view
	switch u.Level() {
	case dpe.LevelCatalog:
		v, err = viewOf(dpe.RenderCatalogMarkdown, dpe.RenderCatalogText)(s.catalog(ctx, u.Query))
	case dpe.LevelDocument:
		v, err = viewOf(dpe.RenderDocumentMarkdown, dpe.RenderDocumentText)(s.document(ctx, u))
	case dpe.LevelPage:
		v, err = viewOf(dpe.RenderPageMarkdown, dpe.RenderPageText)(s.page(ctx, u))
	case dpe.LevelElement:
		v, err = viewOf(dpe.RenderElementMarkdown, dpe.RenderElementText)(s.element(ctx, u))
	}
	if err != nil {
		return nil, err
	}
	c := mcp.TextResourceContents{URI: raw}
	switch u.Query.Format {
	case dpe.FormatMarkdown:
		c.MIMEType, c.Text = mimeMarkdown, v.markdown()
	case dpe.FormatText:
		c.MIMEType, c.Text = mimeText, v.text()
	default:
		b, err := json.Marshal(v.body)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", raw, err)
		}
		c.MIMEType, c.Text = mimeJSON, string(b)
	}
	return []mcp.ResourceContents{c}, nil
}

// view is a read's body of any level with its two renderings, computed
// only for the format asked.
type view struct {
	body           any
	markdown, text func() string
}

// viewOf pairs a level's renderers with the result of its read, passing
// the read's error through: viewOf(md, txt)(s.page(ctx, u)).
func viewOf[T any](md, txt func(T) string) func(T, error) (view, error) {
	return func(v T, err error) (view, error) {
		if err != nil {
			return view{}, err
		}
		// Served Markdown is for agents and files: readable (dpe.Portable).
		return view{body: v, markdown: func() string { return dpe.Portable(md(v)) }, text: func() string { return txt(v) }}, nil
	}
}

// errDocNotFound is the 4201 error of an unknown doc_ref.
func errDocNotFound(ref string) error {
	return protocol.Errorf(protocol.CodeDocumentNotFound, "document %q not found", ref).
		WithDetails(map[string]any{"doc_ref": ref})
}

// unreadableError is the error of a document that cannot be read: the
// coded JSON-RPC error of a read, and the reason for a listing.
type unreadableError struct {
	reason string
	rpc    *rpcerr.Error
}

func (u *unreadableError) Error() string { return u.rpc.Error() }
func (u *unreadableError) Unwrap() error { return u.rpc }

// newUnreadable is the error of a read of ref's pages or elements when
// the file cannot be read: 4202, since its Level 1 read lists no pages
// (page_count 0), with the reason in words.
func newUnreadable(ref, rel string, err error) *unreadableError {
	reason := unreadableReason(err)
	return &unreadableError{reason: reason, rpc: &rpcerr.Error{Code: protocol.CodePageOutOfRange,
		Message: fmt.Sprintf("%s cannot be read, so it has no pages: %s", rel, reason),
		Data:    map[string]any{"doc_ref": ref, "page_count": 0, "unreadable": reason}}}
}

// current returns the entry of ref as its file is now. The file is
// stat'ed on every read, so a change is seen even before the watcher
// reports it.
func (s *Server) current(ref string) (*entry, error) {
	e, ok := s.index.lookup(ref)
	if !ok {
		return nil, errDocNotFound(ref)
	}
	cur, ok := s.scan.classify(e.rel, 0)
	if !ok && e.fileType == folderType {
		cur, ok = s.scan.folder(e.rel)
	}
	if !ok {
		return nil, errDocNotFound(ref)
	}
	return &entry{fileInfo: cur, docRef: e.docRef, ver: versionOf(cur)}, nil
}

// load returns the document of ref (see current and parsed).
func (s *Server) load(ctx context.Context, ref string) (*entry, *handle, error) {
	fresh, err := s.current(ref)
	if err != nil {
		return nil, nil, err
	}
	return s.parsed(ctx, fresh)
}

// parsed returns the document of the file version fresh: parsed, or for
// a PDF opened for page reads. A file whose peek failed is not parsed: it
// is unreadable (an *unreadableError, returned with the entry), as is one
// whose parse fails.
func (s *Server) parsed(ctx context.Context, fresh *entry) (*entry, *handle, error) {
	ref, cur := fresh.docRef, fresh.fileInfo
	failed := func(err error) (*entry, *handle, error) {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, errDocNotFound(ref) // deleted since the stat above
		}
		return fresh, nil, newUnreadable(ref, cur.rel, err)
	}
	if _, err := s.metaOf(ctx, fresh); err != nil {
		return failed(err)
	}
	h, err := s.docs.get(ctx, keyOf(cur), func() (*handle, error) {
		start := time.Now()
		var h *handle
		var err error
		if cur.kind == extract.KindPDF {
			h, err = s.openPDF(cur)
		} else {
			var d *extract.Document
			if d, err = s.parse(cur); err == nil {
				h = parsedHandle(d)
			}
		}
		s.parsesRun.Add(1)
		var timedOut errTimedOut
		switch {
		case err == nil:
			s.log.Debug("parsed document", "path", cur.rel, "pages", h.pageCount(), "took", time.Since(start))
			s.disk.update(keyOf(cur), func(e *diskEntry) { e.Info = h.info })
		case errors.As(err, &timedOut) || isContextErr(err) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission):
			s.log.Warn("document cannot be parsed", "path", cur.rel, "err", err)
		default:
			s.log.Warn("document cannot be parsed", "path", cur.rel, "err", err)
			s.disk.update(keyOf(cur), func(e *diskEntry) { e.Info = &docInfo{Err: unreadableReason(err)} })
		}
		return h, err
	})
	if err != nil {
		return failed(err)
	}
	return fresh, h, nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// parse reads a file (within the size bound) and parses it, once the
// memory gate admits it, within ParseTimeout from then. The parsers check
// their context as they go, so a parse stops soon after its deadline; one
// that does not (a library loop) is abandoned and keeps its memory
// reservation until it ends. A timeout is cached like any parse failure
// until the file changes.
func (s *Server) parse(f fileInfo) (*extract.Document, error) {
	file, err := s.openRegular(f.rel)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	s.warmEngine(f.kind)
	release, err := s.mem.acquire(s.baseCtx, readCost(f.kind, file, f.size, s.opts.Extract))
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(file, s.opts.MaxFileSize+1))
	if err != nil {
		release()
		return nil, fmt.Errorf("read: %w", err)
	}
	if int64(len(data)) > s.opts.MaxFileSize {
		release()
		return nil, fmt.Errorf("file is larger than %d bytes", s.opts.MaxFileSize)
	}
	ctx, cancel := context.WithTimeout(s.baseCtx, s.opts.ParseTimeout)
	defer cancel()
	type result struct {
		doc *extract.Document
		err error
	}
	done := make(chan result, 1)
	s.work.Add(1)
	go func() {
		defer s.work.Done()
		defer release()
		doc, err := s.parser.Parse(ctx, extract.Source{Name: s.sourceName(f.rel), Data: data})
		done <- result{doc, err}
	}()
	select {
	case r := <-done:
		if r.err != nil && ctx.Err() != nil && s.baseCtx.Err() == nil {
			return nil, errTimedOut{s.opts.ParseTimeout}
		}
		return r.doc, r.err
	case <-ctx.Done():
		if s.baseCtx.Err() != nil {
			return nil, s.baseCtx.Err()
		}
		return nil, errTimedOut{s.opts.ParseTimeout}
	}
}

// fileURI is the file:// URL of a served file.
func (s *Server) fileURI(rel string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(s.rootDir, filepath.FromSlash(rel)))}
	return u.String()
}

// level1 is the Level 1 read of ref without its page index: from the
// on-disk cache when it knows this version of the file (no parse), else
// from a parse. A document that cannot be read is described as such.
func (s *Server) level1(ctx context.Context, ref string) (protocol.DPEDocument, error) {
	fresh, err := s.current(ref)
	if err != nil {
		return protocol.DPEDocument{}, err
	}
	if d, ok := s.disk.get(keyOf(fresh.fileInfo)); ok && d.Info != nil {
		if d.Info.Err != "" {
			return s.unreadableDocument(fresh, &unreadableError{reason: d.Info.Err}), nil
		}
		if _, ok := s.docs.peek(keyOf(fresh.fileInfo)); !ok {
			return s.metadataOf(fresh, d.Info), nil
		}
	}
	e, h, err := s.parsed(ctx, fresh)
	var ue *unreadableError
	if errors.As(err, &ue) {
		return s.unreadableDocument(e, ue), nil
	}
	if err != nil {
		return protocol.DPEDocument{}, err
	}
	return s.metadataOf(e, h.info), nil
}

// metadataOf is the Level 1 read of a document from its cached metadata.
func (s *Server) metadataOf(e *entry, in *docInfo) protocol.DPEDocument {
	kw := in.Keywords
	if kw == nil {
		kw = []string{}
	}
	return protocol.DPEDocument{
		DocRef:       e.docRef,
		URI:          dpe.Document(s.host, e.docRef).String(),
		FileURI:      s.fileURI(e.rel),
		FileType:     e.fileType,
		Title:        in.Title,
		PageCount:    in.Pages,
		Keywords:     kw,
		Summary:      in.Summary,
		LastModified: e.mtime.UTC().Format(time.RFC3339),
		Truncated:    cutOf(in),
	}
}

// cutOf says what cut a document short, or "" for a whole one.
func cutOf(in *docInfo) string {
	switch {
	case in.Cut != "":
		return in.Cut
	case in.Truncated:
		return "cut short by a bound (rows, pages, elements or size)"
	}
	return ""
}

// unreadableDocument is the Level 1 read of a document that cannot be
// read: no pages, the reason as summary and in "unreadable".
func (s *Server) unreadableDocument(e *entry, ue *unreadableError) protocol.DPEDocument {
	return protocol.DPEDocument{
		DocRef:       e.docRef,
		URI:          dpe.Document(s.host, e.docRef).String(),
		FileURI:      s.fileURI(e.rel),
		FileType:     e.fileType,
		Title:        path.Base(e.rel),
		Keywords:     []string{},
		Summary:      "Unreadable: " + ue.reason,
		LastModified: e.mtime.UTC().Format(time.RFC3339),
		Unreadable:   ue.reason,
	}
}

// catalog is the Level 0 read: the documents from offset (default 0), at
// most limit of them (default 100), with total_count of all documents.
// Documents that cannot be read are listed with their reason.
func (s *Server) catalog(ctx context.Context, q dpe.Query) (protocol.DPECatalog, error) {
	entries := s.index.snapshot()
	off, lim := 0, catalogDefaultLimit
	if q.Offset != nil {
		off = *q.Offset
	}
	if q.Limit != nil {
		lim = *q.Limit
	}
	cat := protocol.DPECatalog{Documents: []protocol.DPEDocumentSummary{}, TotalCount: len(entries), Skipped: s.scan.skipped.summary()}
	for i := off; i < len(entries) && i < off+lim; i++ {
		d, err := s.level1(ctx, entries[i].docRef)
		switch {
		case err == nil:
			sum := d.CatalogEntry(s.host)
			sum.Path = entries[i].rel
			cat.Documents = append(cat.Documents, sum)
		case ctx.Err() != nil:
			return cat, ctx.Err()
		}
	}
	return cat, nil
}

// document is the Level 1 read; depth=pages adds the page index window
// (offset default 0, limit default 20), which reads no page: a PDF's
// pages not read yet have their outline title and no element count.
func (s *Server) document(ctx context.Context, u dpe.URI) (protocol.DPEDocument, error) {
	if u.Query.Depth != dpe.DepthPages {
		return s.level1(ctx, u.DocRef)
	}
	off, lim := 0, dpe.DefaultLimit
	if u.Query.Offset != nil {
		off = *u.Query.Offset
	}
	if u.Query.Limit != nil {
		lim = *u.Query.Limit
	}
	e, h, err := s.load(ctx, u.DocRef)
	var ue *unreadableError
	if errors.As(err, &ue) {
		// No pages, but a page list all the same: a client iterating
		// "pages" finds it empty.
		d := s.unreadableDocument(e, ue)
		total := 0
		d.Pages, d.PageOffset, d.PageLimit, d.PageTotal = []protocol.DPEPageSummary{}, &off, &lim, &total
		return d, nil
	}
	if err != nil {
		return protocol.DPEDocument{}, err
	}
	d := s.metadataOf(e, h.info)
	total := h.pageCount()
	d.Pages = []protocol.DPEPageSummary{}
	for k, ps := range h.summaries(off, off+lim) {
		i := off + k
		sum := protocol.DPEPageSummary{
			PageIndex:    i,
			Title:        ps.title,
			ElementCount: ps.elements,
			URI:          dpe.Page(s.host, e.docRef, i).String(),
			DocRef:       e.docRef,
		}
		for _, b := range ps.bookmarks {
			sum.Bookmarks = append(sum.Bookmarks, protocol.DPEBookmark{Title: b.Title, Level: b.Depth + 1})
		}
		d.Pages = append(d.Pages, sum)
	}
	d.PageOffset, d.PageLimit, d.PageTotal = &off, &lim, &total
	d.BookmarkCount = h.bookmarkCount()
	return d, nil
}

// page is the Level 2 read. With categories, only elements of those
// categories are returned and element_count counts the returned elements.
func (s *Server) page(ctx context.Context, u dpe.URI) (protocol.DPEPage, error) {
	e, h, err := s.load(ctx, u.DocRef)
	if err != nil {
		return protocol.DPEPage{}, err
	}
	if n := h.pageCount(); u.Page >= n {
		return protocol.DPEPage{}, protocol.Errorf(protocol.CodePageOutOfRange,
			"page %d is out of range: document %q has %d pages", u.Page, u.DocRef, n).
			WithDetails(map[string]any{"page_index": u.Page, "page_count": n})
	}
	pg, err := h.page(ctx, u.Page)
	if err != nil {
		return protocol.DPEPage{}, err
	}
	p := protocol.DPEPage{
		PageIndex: u.Page,
		Title:     pg.Title,
		DocRef:    e.docRef,
		URI:       dpe.Page(s.host, e.docRef, u.Page).String(),
		Elements:  make([]protocol.DPEElementDetail, 0, len(pg.Elements)),
	}
	for _, el := range pg.Elements {
		if len(u.Query.Categories) > 0 && !slices.Contains(u.Query.Categories, el.Category) {
			continue
		}
		p.Elements = append(p.Elements, protocol.DPEElementDetail{
			ElementID: el.ID,
			Category:  string(el.Category),
			Summary:   el.Summary,
			Content:   s.servedContent(e.docRef, h.pageCount(), el.Content),
		})
	}
	p.ElementCount = len(p.Elements)
	return p, nil
}

// servedContent is an element's content as served: a link to a page of
// its own document (content key "target_page", a PDF's internal link)
// has that page's dpe:// URI for url, so that a client follows it like
// any page link. The cached content is not changed.
func (s *Server) servedContent(ref string, pages int, c map[string]any) map[string]any {
	var tp int
	switch v := c["target_page"].(type) {
	case int:
		tp = v
	case float64:
		tp = int(v)
	default:
		return c
	}
	if tp < 0 || tp >= pages {
		return c // past the pages served: the url stays "#page=N"
	}
	out := maps.Clone(c)
	out["url"] = dpe.Page(s.host, ref, tp).String()
	return out
}

// element is the Level 3 read: the element's full content (a table adds
// total_rows and total_columns) and its metadata.
func (s *Server) element(ctx context.Context, u dpe.URI) (protocol.DPEElementDetail, error) {
	e, h, err := s.load(ctx, u.DocRef)
	if err != nil {
		return protocol.DPEElementDetail{}, err
	}
	el, pi, ok, err := findElement(ctx, h, u.ElementID)
	if err != nil {
		return protocol.DPEElementDetail{}, err
	}
	if !ok {
		return protocol.DPEElementDetail{}, protocol.Errorf(protocol.CodeElementNotFound,
			"element %q not found in document %q", u.ElementID, u.DocRef).
			WithDetails(map[string]any{"element_id": u.ElementID})
	}
	content := maps.Clone(s.servedContent(e.docRef, h.pageCount(), el.Content))
	maps.Copy(content, el.Detail)
	var meta map[string]any
	if len(el.Metadata) > 0 {
		meta = el.Metadata
	}
	return protocol.DPEElementDetail{
		ElementID: el.ID,
		Category:  string(el.Category),
		Summary:   el.Summary,
		Content:   content,
		DocRef:    e.docRef,
		PageIndex: &pi,
		URI:       dpe.Element(s.host, e.docRef, el.ID).String(),
		Metadata:  meta,
	}, nil
}

// findElement finds an element by its ID, reading only the page the ID
// names.
func findElement(ctx context.Context, h *handle, id string) (extract.Element, int, bool, error) {
	pi, ok := extract.ElementPage(id)
	if !ok || pi >= h.pageCount() {
		return extract.Element{}, 0, false, nil
	}
	pg, err := h.page(ctx, pi)
	if err != nil {
		return extract.Element{}, 0, false, err
	}
	for _, e := range pg.Elements {
		if e.ID == id {
			return e, pi, true, nil
		}
	}
	return extract.Element{}, 0, false, nil
}
