package mcpfacade

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// instructions tell the host's model how to use the façade.
const instructions = "The documents of an A2C-SMCP office's computers (its Finder). " +
	"finder_computers says what there is; finder_list lists and filters documents; finder_search finds text in all of them, best first; " +
	"finder_document gives a document's page index; finder_page reads a page as Markdown; finder_element reads one element. " +
	"Every document is also a dpe:// resource (dpe://HOST/DOC_REF, …/pages/N, …/elements/ID)."

// newMCPServer builds the mcp-go server: capabilities, hooks, templates,
// completion and tools.
func (f *Facade) newMCPServer() *server.MCPServer {
	hooks := &server.Hooks{}
	hooks.AddOnError(f.errs.Hook)
	hooks.AddAfterListResources(f.afterListResources)
	f.subs.Install(hooks)
	m := server.NewMCPServer("smcp-browse-finder", f.opts.Version,
		server.WithResourceCapabilities(true, true),
		server.WithToolCapabilities(false),
		server.WithCompletions(),
		server.WithResourceCompletionProvider(completer{f}),
		server.WithHooks(hooks),
		server.WithRecovery(),
		server.WithResourceRecovery(),
		server.WithInstructions(instructions),
	)
	for _, t := range templates() {
		m.AddResourceTemplate(t, f.readResource)
	}
	f.addTools(m)
	return m
}

// templates are the resource templates: a document, its pages and its
// elements (the specification's), and dpe://{host}{+path}, which matches
// any dpe:// URI, including those with query parameters, which mcp-go's
// template matching would otherwise not route.
func templates() []mcp.ResourceTemplate {
	return []mcp.ResourceTemplate{
		mcp.NewResourceTemplate("dpe://{host}/{doc_ref}/pages/{page_index}", "Document page",
			mcp.WithTemplateDescription("Level 2: one page of a document (from 0). Query: format=json|markdown|text, categories=table,text,..."),
			mcp.WithTemplateMIMEType("application/json")),
		mcp.NewResourceTemplate("dpe://{host}/{doc_ref}/elements/{element_id}", "Document element",
			mcp.WithTemplateDescription("Level 3: one element of a document, by id. Query: format=json|markdown|text."),
			mcp.WithTemplateMIMEType("application/json")),
		mcp.NewResourceTemplate("dpe://{host}/{doc_ref}", "Document",
			mcp.WithTemplateDescription("Level 1: a document's metadata; ?depth=pages adds its page index."),
			mcp.WithTemplateMIMEType("application/json")),
		mcp.NewResourceTemplate("dpe://{host}{+path}", "Any dpe:// URI",
			mcp.WithTemplateDescription("Any dpe:// URI of the office's documents, with its query parameters."),
			mcp.WithTemplateMIMEType("application/json")),
	}
}

// readResource answers resources/read through the computer that serves
// the URI's host. Errors keep the computer's code (4201–4204 ...).
func (f *Facade) readResource(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	ret, _, err := f.read(ctx, req.Params.URI)
	if err != nil {
		return nil, explain(err)
	}
	out := make([]mcp.ResourceContents, 0, len(ret.Contents))
	for _, c := range ret.Contents {
		uri := cmp.Or(c.URI, req.Params.URI)
		if c.Blob != "" {
			out = append(out, mcp.BlobResourceContents{URI: uri, MIMEType: c.MIMEType, Blob: c.Blob})
			continue
		}
		out = append(out, mcp.TextResourceContents{URI: uri, MIMEType: c.MIMEType, Text: c.Text})
	}
	return out, nil
}

// afterListResources answers resources/list. No static resources are
// registered, so mcp-go's own handler produces an empty page; this hook
// fills it with a page of the office's catalogs: the computers in name
// order, each catalog in its order, ListPageSize entries a page, the
// cursor saying where the next page starts (listCursor). An error leaves
// the page empty with no cursor, and is logged.
func (f *Facade) afterListResources(ctx context.Context, _ any, req *mcp.ListResourcesRequest, result *mcp.ListResourcesResult) {
	result.Resources, result.NextCursor = []mcp.Resource{}, ""
	computers, err := f.listComputers(ctx)
	if err != nil {
		f.log.Warn("resources/list", "err", err)
		return
	}
	office, err := f.attached(ctx)
	if err != nil {
		f.log.Warn("resources/list", "err", err)
		return
	}
	at := listCursor{}
	if c := string(req.Params.Cursor); c != "" {
		var ok bool
		if at, ok = decodeListCursor(c); !ok {
			f.log.Warn("resources/list: a cursor not of ours", "cursor", c)
			return
		}
	}
	i := 0
	if at.Computer != "" {
		i = slices.Index(computers, at.Computer)
		if i < 0 {
			return
		}
	}
	for ; i < len(computers) && len(result.Resources) == 0; i, at.Offset = i+1, 0 {
		c := computers[i]
		cctx, cancel := f.call(ctx)
		ret, err := office.GetFinder(cctx, c, protocol.FinderQuery{Offset: at.Offset, Limit: f.opts.ListPageSize})
		cancel()
		if err != nil {
			f.log.Warn("resources/list", "computer", c, "err", err)
			continue
		}
		for _, d := range ret.Documents {
			result.Resources = append(result.Resources, resourceOf(c, d))
			if h, err := hostOf(d); err == nil {
				f.learnHost(h, c)
			}
		}
		switch next := at.Offset + len(ret.Documents); {
		case len(ret.Documents) > 0 && next < ret.TotalCount:
			result.NextCursor = mcp.Cursor(listCursor{Computer: c, Offset: next}.encode())
		case i+1 < len(computers):
			result.NextCursor = mcp.Cursor(listCursor{Computer: computers[i+1]}.encode())
		}
	}
}

// resourceOf is the resources/list entry of a catalog entry: its title,
// summary and last change, and in _meta what a host needs to show it
// before reading it (computer, path, type, page count).
func resourceOf(computer string, d protocol.DPEDocumentSummary) mcp.Resource {
	r := mcp.Resource{
		URI:         d.URI,
		Name:        cmp.Or(d.Title, d.Path),
		Description: d.Summary,
		MIMEType:    "application/json",
	}
	if d.LastModified != "" {
		r.Annotations = &mcp.Annotations{LastModified: d.LastModified}
	}
	meta := map[string]any{"computer": computer, "doc_ref": d.DocRef, "path": d.Path, "file_type": d.FileType, "page_count": d.PageCount}
	if d.Pending {
		meta["pending"] = true
	}
	if d.Unreadable != "" {
		meta["unreadable"] = d.Unreadable
	}
	r.Meta = &mcp.Meta{AdditionalFields: meta}
	return r
}

// completer completes the arguments of the resource templates.
type completer struct{ f *Facade }

// completeMax bounds the values of one completion.
const completeMax = 100

func (c completer) CompleteResourceArgument(ctx context.Context, _ string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	var values []string
	switch arg.Name {
	case "host":
		c.f.mu.Lock()
		for h := range c.f.hosts {
			if strings.HasPrefix(h, arg.Value) {
				values = append(values, h)
			}
		}
		c.f.mu.Unlock()
	case "doc_ref":
		values = c.docRefs(cc.Arguments["host"], arg.Value)
	case "page_index":
		values = c.pages(ctx, cc.Arguments["host"], cc.Arguments["doc_ref"], arg.Value)
	case "element_id":
		values = c.elements(ctx, cc.Arguments, arg.Value)
	}
	slices.Sort(values)
	total := len(values)
	return &mcp.Completion{Values: values[:min(total, completeMax)], Total: total, HasMore: total > completeMax}, nil
}

// docRefs are the doc_refs of host's documents the façade has seen.
func (c completer) docRefs(host, prefix string) []string {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	var out []string
	for _, stamps := range c.f.stamps {
		for uri := range stamps {
			if u, err := dpe.Parse(uri); err == nil && (host == "" || u.Host == host) && strings.HasPrefix(u.DocRef, prefix) {
				out = append(out, u.DocRef)
			}
		}
	}
	return out
}

// pages are the page numbers of a document.
func (c completer) pages(ctx context.Context, host, docRef, prefix string) []string {
	if host == "" || docRef == "" {
		return nil
	}
	ret, _, err := c.f.read(ctx, dpe.Document(host, docRef).String())
	if err != nil {
		return nil
	}
	var d protocol.DPEDocument
	if decodeFirst(ret, &d) != nil {
		return nil
	}
	var out []string
	for i := range min(d.PageCount, completeMax*10) {
		if v := strconv.Itoa(i); strings.HasPrefix(v, prefix) {
			out = append(out, v)
		}
	}
	return out
}

// elements are the element ids of a page (page_index given) of a
// document.
func (c completer) elements(ctx context.Context, args map[string]string, prefix string) []string {
	n, err := strconv.Atoi(args["page_index"])
	if args["host"] == "" || args["doc_ref"] == "" || err != nil || n < 0 {
		return nil
	}
	u := dpe.Page(args["host"], args["doc_ref"], n).WithQuery(dpe.Query{Format: dpe.FormatJSON})
	ret, _, err := c.f.read(ctx, u.String())
	if err != nil {
		return nil
	}
	var p protocol.DPEPage
	if decodeFirst(ret, &p) != nil {
		return nil
	}
	var out []string
	for _, e := range p.Elements {
		if strings.HasPrefix(e.ElementID, prefix) {
			out = append(out, e.ElementID)
		}
	}
	return out
}
