package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/finder"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// fakeBackend serves an in-memory corpus through the Backend interface, with
// the real Finder organizer behind get_finder and JSON round trips behind
// reads, so the screens see what they would see from a Computer. Tests can
// inject errors, hold calls at a gate and change the corpus.
type fakeBackend struct {
	mu        sync.Mutex
	office    string
	computers []string
	docs      []fakeDoc
	desktop   []string
	skills    []protocol.A2CSkillRef
	skillMD   map[string]string // SKILL name -> SKILL.md body
	// skillFiles are a SKILL's other files ("name/rel" -> file); one
	// with a handle comes by blob (blobs holds its bytes).
	skillFiles map[string]fakeSkillFile
	blobs      map[string][]byte
	// tools are the computer's tools; results answers their calls by
	// tool name (a tool without one answers its arguments as text).
	tools   []protocol.SMCPTool
	results map[string]*protocol.CallToolResult
	errs    map[string]error // op -> error returned by every call of op
	calls   []string         // "op arg" log
	gates   map[string]*gate // calls matching a key wait at the gate
	blocked int
	// noExtension makes get_finder ignore this project's Finder extension
	// (match, sort, file_types), as a Computer of another implementation.
	noExtension bool
	// searchStep is how many documents a search_finder step scans.
	searchStep int
	// ranked, when set, answers search_finder instead of the literal scan
	// (a Computer whose document servers rank with an index).
	ranked func(q protocol.SearchQuery) *protocol.SearchFinderRet
	// listing marks get_finder answers as given while the computer is
	// still listing its documents (GetFinderRet.Listing).
	listing bool
	// skipped is what ReadCatalog says the server of testHost left out.
	skipped *protocol.SkippedFiles
}

// ReadCatalog answers a Level 0 read with what the servers skipped (the
// call is not logged: no test counts it).
func (f *fakeBackend) ReadCatalog(ctx context.Context, computer string, u dpe.URI) (*protocol.DPECatalog, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cat := &protocol.DPECatalog{Documents: []protocol.DPEDocumentSummary{}}
	if u.Host == testHost {
		cat.Skipped = f.skipped // the other servers skip nothing
	}
	return cat, nil
}

type fakeDoc struct {
	sum   protocol.DPEDocumentSummary
	pages []protocol.DPEPage
	meta  map[string]map[string]any // element id -> metadata
	// As a document server says of a PDF read page by page: its own
	// bookmarks by page, and the pages it has not read (their page index
	// entries count no elements).
	bookmarks map[int][]protocol.DPEBookmark
	unread    map[int]bool
}

func (f *fakeBackend) Office() string { return f.office }

func (f *fakeBackend) enter(op, arg string) error {
	call := op + " " + arg
	f.mu.Lock()
	f.calls = append(f.calls, call)
	err := f.errs[op]
	var g *gate
	for k, gg := range f.gates {
		if strings.Contains(call, k) {
			g = gg
			break
		}
	}
	if g != nil {
		g.waiting++
		f.blocked++
	}
	f.mu.Unlock()
	if g != nil {
		<-g.ch // release has already taken this call off the blocked count
	}
	return err
}

// gate holds calls until it is released.
type gate struct {
	ch      chan struct{}
	waiting int
}

// holdCalls makes every later call whose "op arg" contains substr wait
// until the returned release is called ("" holds every call).
func (f *fakeBackend) holdCalls(substr string) (release func()) {
	g := &gate{ch: make(chan struct{})}
	f.mu.Lock()
	if f.gates == nil {
		f.gates = map[string]*gate{}
	}
	f.gates[substr] = g
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		delete(f.gates, substr)
		f.blocked -= g.waiting
		f.mu.Unlock()
		close(g.ch)
	}
}

func (f *fakeBackend) blockedCalls() int {
	if f == nil { // a real backend holds no call at a gate
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.blocked
}

func (f *fakeBackend) setErr(op string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.errs == nil {
		f.errs = map[string]error{}
	}
	if err == nil {
		delete(f.errs, op)
	} else {
		f.errs[op] = err
	}
}

func (f *fakeBackend) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func (f *fakeBackend) countCalls(prefix string) int {
	n := 0
	for _, c := range f.callLog() {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

func (f *fakeBackend) checkComputer(c string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !slices.Contains(f.computers, c) {
		return protocol.Errorf(protocol.CodeNotFound, "computer %q is not in the office", c)
	}
	return nil
}

func (f *fakeBackend) ListRoom(ctx context.Context) ([]protocol.SessionInfo, error) {
	if err := f.enter("list_room", ""); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := []protocol.SessionInfo{{SID: "sid-agent", Name: "browser", Role: protocol.RoleAgent, OfficeID: f.office}}
	for i, c := range f.computers {
		out = append(out, protocol.SessionInfo{SID: fmt.Sprintf("sid-%02d", i+1), Name: c, Role: protocol.RoleComputer, OfficeID: f.office, A2CVersion: "0.2.0"})
	}
	return out, nil
}

func (f *fakeBackend) GetFinder(ctx context.Context, computer string, q protocol.FinderQuery) (*protocol.GetFinderRet, error) {
	arg := fmt.Sprintf("%v|%s|%d|%d", q.Keywords, q.FileType, q.Offset, q.Limit)
	if q.Sort != "" {
		arg += "|sort=" + q.Sort
	}
	if err := f.enter("get_finder", arg); err != nil {
		return nil, err
	}
	if err := f.checkComputer(computer); err != nil {
		return nil, err
	}
	f.mu.Lock()
	sums := make([]protocol.DPEDocumentSummary, len(f.docs))
	for i, d := range f.docs {
		sums[i] = d.sum
	}
	noExt := f.noExtension
	f.mu.Unlock()
	if q.Limit == 0 {
		q.Limit = finder.DefaultLimit
	}
	if noExt { // a Computer that knows only the specification's query
		q = protocol.FinderQuery{Keywords: q.Keywords, FileType: q.FileType, Offset: q.Offset, Limit: q.Limit}
	}
	page, total := finder.OrganizeQuery(sums, q, nil)
	ret := &protocol.GetFinderRet{Documents: page, TotalCount: total, ReqID: "r", Listing: f.listing}
	if !noExt {
		ret.FileTypes = finder.FileTypes(sums, q)
	}
	return ret, nil
}

// findDoc returns the document of u.
func (f *fakeBackend) findDoc(u dpe.URI) (*fakeDoc, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.docs {
		d := &f.docs[i]
		if d.sum.DocRef == u.DocRef && strings.HasPrefix(d.sum.URI, "dpe://"+u.Host+"/") {
			c := *d
			return &c, nil
		}
	}
	return nil, protocol.Errorf(protocol.CodeDocumentNotFound, "document %q not found", u.DocRef).
		WithDetails(map[string]any{"uri": u.String()})
}

func (f *fakeBackend) ReadDocument(ctx context.Context, computer string, u dpe.URI) (*protocol.DPEDocument, error) {
	offset, limit := 0, 0
	if u.Query.Offset != nil {
		offset = *u.Query.Offset
	}
	if u.Query.Limit != nil {
		limit = *u.Query.Limit
	}
	if err := f.enter("read_document", fmt.Sprintf("%s|%d|%d", u.DocumentURI(), offset, limit)); err != nil {
		return nil, err
	}
	if err := f.checkComputer(computer); err != nil {
		return nil, err
	}
	if u.Level() != dpe.LevelDocument {
		return nil, protocol.Errorf(protocol.CodeInvalidDPEURI, "%s is not a document URI", u)
	}
	d, err := f.findDoc(u)
	if err != nil {
		return nil, err
	}
	s := d.sum
	doc := &protocol.DPEDocument{
		DocRef: s.DocRef, URI: s.URI, FileURI: s.FileURI, FileType: s.FileType, Title: s.Title,
		PageCount: len(d.pages), Keywords: s.Keywords, Summary: s.Summary, LastModified: s.LastModified,
		Truncated: s.Truncated,
	}
	if u.Query.Depth == dpe.DepthPages {
		if limit == 0 {
			limit = dpe.DefaultLimit
		}
		total := len(d.pages)
		doc.Pages = []protocol.DPEPageSummary{}
		for i := offset; i < min(offset+limit, total); i++ {
			p := d.pages[i]
			ps := protocol.DPEPageSummary{PageIndex: i, Title: p.Title, ElementCount: len(p.Elements), URI: p.URI, DocRef: s.DocRef, Bookmarks: d.bookmarks[i]}
			if d.unread[i] {
				ps.ElementCount = protocol.ElementsNotCounted
			}
			doc.Pages = append(doc.Pages, ps)
		}
		doc.PageOffset, doc.PageLimit, doc.PageTotal = &offset, &limit, &total
		for _, m := range d.bookmarks {
			doc.BookmarkCount += len(m)
		}
	}
	return roundTrip(doc)
}

func (f *fakeBackend) ReadPage(ctx context.Context, computer string, u dpe.URI) (*protocol.DPEPage, error) {
	if err := f.enter("read_json", u.String()); err != nil {
		return nil, err
	}
	if err := f.checkComputer(computer); err != nil {
		return nil, err
	}
	if u.Level() != dpe.LevelPage {
		return nil, protocol.Errorf(protocol.CodeInvalidDPEURI, "%s is not a page URI", u)
	}
	d, err := f.findDoc(u)
	if err != nil {
		return nil, err
	}
	if u.Page >= len(d.pages) {
		return nil, protocol.Errorf(protocol.CodePageOutOfRange, "page %d out of range [0, %d)", u.Page, len(d.pages))
	}
	p := d.pages[u.Page]
	if len(u.Query.Categories) > 0 {
		var kept []protocol.DPEElementDetail
		for _, e := range p.Elements {
			if slices.Contains(u.Query.Categories, dpe.Category(e.Category)) {
				kept = append(kept, e)
			}
		}
		p.Elements = kept
		p.ElementCount = len(kept)
	}
	return roundTrip(&p)
}

func (f *fakeBackend) ReadElement(ctx context.Context, computer string, u dpe.URI) (*protocol.DPEElementDetail, error) {
	if err := f.enter("read_element", u.DocumentURI().String()+"|"+u.ElementID); err != nil {
		return nil, err
	}
	if err := f.checkComputer(computer); err != nil {
		return nil, err
	}
	if u.Level() != dpe.LevelElement {
		return nil, protocol.Errorf(protocol.CodeInvalidDPEURI, "%s is not an element URI", u)
	}
	d, err := f.findDoc(u)
	if err != nil {
		return nil, err
	}
	for i, p := range d.pages {
		for _, e := range p.Elements {
			if e.ElementID == u.ElementID {
				idx := i
				e.PageIndex = &idx
				e.DocRef = d.sum.DocRef
				e.URI = u.String()
				e.Metadata = d.meta[u.ElementID]
				return roundTrip(&e)
			}
		}
	}
	return nil, protocol.Errorf(protocol.CodeElementNotFound, "element %q not found", u.ElementID)
}

// SearchFinder searches the text of the fake's pages (rendered as plain
// text) the way the Computer does: a step of searchStep documents at a
// time, the cursor the index of the next document.
func (f *fakeBackend) SearchFinder(ctx context.Context, computer string, q protocol.SearchQuery) (*protocol.SearchFinderRet, error) {
	if err := f.enter("search_finder", q.Query+"|"+q.Cursor); err != nil {
		return nil, err
	}
	if err := f.checkComputer(computer); err != nil {
		return nil, err
	}
	f.mu.Lock()
	docs := slices.Clone(f.docs)
	step := f.searchStep
	ranked := f.ranked
	f.mu.Unlock()
	if ranked != nil && !q.Literal {
		return ranked(q), nil
	}
	if step <= 0 {
		step = 3
	}
	from := 0
	if q.Cursor != "" {
		from, _ = strconv.Atoi(q.Cursor)
	}
	ret := &protocol.SearchFinderRet{Matches: []protocol.SearchMatch{}, TotalDocuments: len(docs), ReqID: "r"}
	needle := strings.ToLower(q.Query)
	end := min(from+step, len(docs))
	for _, d := range docs[from:end] {
		if q.FileType != "" && d.sum.FileType != q.FileType {
			continue
		}
		for pi, p := range d.pages {
			for _, e := range p.Elements {
				for _, line := range strings.Split(dpe.RenderElementText(e), "\n") {
					if i := strings.Index(strings.ToLower(line), needle); i >= 0 && len(strings.ToLower(line)) == len(line) {
						ret.Matches = append(ret.Matches, protocol.SearchMatch{
							URI: p.URI, DocRef: d.sum.DocRef, Title: d.sum.Title, FileType: d.sum.FileType, Path: d.sum.Path,
							PageIndex: pi, ElementID: e.ElementID, Line: line, Start: i, End: i + len(needle),
						})
					}
				}
			}
		}
	}
	ret.ScannedDocuments = end
	if end < len(docs) {
		ret.NextCursor = strconv.Itoa(end)
	}
	return ret, nil
}

func (f *fakeBackend) GetDesktop(ctx context.Context, computer string, size int, window string) (*protocol.GetDeskTopRet, error) {
	if err := f.enter("get_desktop", fmt.Sprint(size)); err != nil {
		return nil, err
	}
	if err := f.checkComputer(computer); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	d := slices.Clone(f.desktop)
	if size > 0 && len(d) > size {
		d = d[:size]
	}
	return &protocol.GetDeskTopRet{Desktops: d, ReqID: "r"}, nil
}

func (f *fakeBackend) GetSkills(ctx context.Context, computer string) (*protocol.GetSkillsRet, error) {
	if err := f.enter("get_skills", computer); err != nil {
		return nil, err
	}
	if err := f.checkComputer(computer); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return roundTrip(&protocol.GetSkillsRet{Skills: slices.Clone(f.skills), ReqID: "r"})
}

func (f *fakeBackend) GetSkill(ctx context.Context, computer, name, relPath string) (*protocol.GetSkillRet, error) {
	if err := f.enter("get_skill", name+" "+relPath); err != nil {
		return nil, err
	}
	if err := f.checkComputer(computer); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if file, ok := f.skillFiles[name+"/"+relPath]; ok {
		ret := &protocol.GetSkillRet{Name: name, RelPath: relPath, MIMEType: file.mime, TotalSize: int64(len(file.body)), BlobHandle: file.handle, ReqID: "r"}
		if file.handle == "" {
			ret.Body = &file.body
		} else {
			ret.TotalSize = int64(len(f.blobs[file.handle]))
		}
		return roundTrip(ret)
	}
	body, ok := f.skillMD[name]
	switch {
	case !ok:
		return nil, protocol.Errorf(protocol.CodeMCPServerNotFound, "no skill %q", name).WithDetails(map[string]any{"name": name})
	case relPath != "":
		return nil, protocol.Errorf(protocol.CodeSkillResourceInaccessible, "no file %q in skill %q", relPath, name).WithDetails(map[string]any{"name": name, "reason": "not_found"})
	}
	return roundTrip(&protocol.GetSkillRet{Name: name, RelPath: "SKILL.md", MIMEType: "text/markdown", TotalSize: int64(len(body)), Body: &body, ReqID: "r"})
}

// fakeSkillFile is a SKILL file of the fake: its body, or a blob handle.
type fakeSkillFile struct {
	mime, body, handle string
}

func (f *fakeBackend) GetBlob(ctx context.Context, computer, handle string, max int64) ([]byte, agent.BlobInfo, error) {
	if err := f.enter("get_blob", handle); err != nil {
		return nil, agent.BlobInfo{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.blobs[handle]
	if !ok {
		return nil, agent.BlobInfo{}, protocol.Errorf(protocol.CodeBlobNotAccessible, "no blob %q", handle).WithDetails(map[string]any{"reason": "invalid_handle"})
	}
	return slices.Clone(b), agent.BlobInfo{TotalSize: int64(len(b))}, nil
}

func (f *fakeBackend) GetTools(ctx context.Context, computer string) (*protocol.GetToolsRet, error) {
	if err := f.enter("get_tools", computer); err != nil {
		return nil, err
	}
	if err := f.checkComputer(computer); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return roundTrip(&protocol.GetToolsRet{Tools: slices.Clone(f.tools), ReqID: "r"})
}

func (f *fakeBackend) CallTool(ctx context.Context, computer, tool string, params map[string]any, timeout time.Duration) (*protocol.CallToolResult, error) {
	args, _ := json.Marshal(params)
	if err := f.enter("call_tool", tool+" "+string(args)); err != nil {
		return nil, err
	}
	if err := f.checkComputer(computer); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if res, ok := f.results[tool]; ok {
		return roundTrip(res)
	}
	return roundTrip(&protocol.CallToolResult{Content: []protocol.ToolContent{{Type: "text", Text: tool + " got " + string(args)}}})
}

// roundTrip passes v through JSON, as the wire would.
func roundTrip[T any](v *T) (*T, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out T
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// mutate changes the corpus under the lock.
func (f *fakeBackend) mutate(fn func(docs *[]fakeDoc)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(&f.docs)
}

// --- the sample corpus ---------------------------------------------------------

// testNow is the clock of every test: relative times in goldens stay put.
var testNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

const testHost = "com.smcp.docs"

func el(id, cat, summary string, content map[string]any) protocol.DPEElementDetail {
	return protocol.DPEElementDetail{ElementID: id, Category: cat, Summary: summary, Content: content}
}

func mkDoc(host, ref, server, ftype, title string, kw []string, summary string, modified time.Time, pages ...protocol.DPEPage) fakeDoc {
	uri := dpe.Document(host, ref).String()
	for i := range pages {
		pages[i].PageIndex = i
		pages[i].DocRef = ref
		pages[i].URI = dpe.Page(host, ref, i).String()
		pages[i].ElementCount = len(pages[i].Elements)
	}
	return fakeDoc{
		sum: protocol.DPEDocumentSummary{
			DocRef: ref, URI: uri, FileURI: "file:///data/docs/" + ref + "." + ftype, FileType: ftype,
			Title: title, PageCount: len(pages), Keywords: kw, Summary: summary, Server: server,
			LastModified: modified.Format(time.RFC3339),
		},
		pages: pages,
		meta:  map[string]map[string]any{},
	}
}

func sampleCorpus() []fakeDoc {
	ago := func(d time.Duration) time.Time { return testNow.Add(-d) }
	report := mkDoc(testHost, "rpt-2026", "docs", "xlsx", "2026 年度报告", []string{"财务", "年报"},
		"2026 年度财务与运营报告：收入、成本与区域表现。", ago(3*24*time.Hour),
		protocol.DPEPage{Title: "概览", Elements: []protocol.DPEElementDetail{
			el("h-001", "heading", "2026 年度总结", map[string]any{"level": 1, "text": "2026 年度总结"}),
			el("txt-001", "text", "报告引言段落", map[string]any{"text": "本报告总结了 2026 年度公司在各业务领域的运营情况。Revenue grew in every quarter."}),
			el("tbl-001", "table", "季度收入对比表（4行3列）", map[string]any{
				"headers": []any{"季度", "收入（万元）", "同比增长"},
				"align":   []any{"", "right", "center"},
				"rows": []any{
					[]any{"Q1", "1,250", "+12%"}, []any{"Q2", "1,380", "+15%"},
					[]any{"Q3", "1,420", "+8%"}, []any{"Q4", "1,560", "+18%"},
				},
			}),
			el("chart-001", "chart", "季度收入趋势图", map[string]any{"chart_type": "line", "title": "季度收入趋势", "data_summary": "Q1-Q4 收入呈上升趋势，Q4 达到最高点 1,560 万元"}),
		}},
		protocol.DPEPage{Title: "收入分析", Elements: []protocol.DPEElementDetail{
			el("h-002", "heading", "收入分析", map[string]any{"level": 2, "text": "收入分析"}),
			el("lst-001", "list", "增长来源", map[string]any{"ordered": true, "items": []any{"新客户", "续约", "海外市场"}}),
			el("f-001", "formula", "年度合计", map[string]any{"expression": "SUM(B2:B5)", "cell": "B6", "value": 5610}),
		}},
		protocol.DPEPage{Title: "成本", Elements: []protocol.DPEElementDetail{
			el("h-003", "heading", "成本", map[string]any{"level": 2, "text": "成本"}),
			el("txt-003", "text", "成本说明", map[string]any{"text": "Costs stayed flat; see the appendix for the breakdown by region."}),
		}},
	)
	report.meta["tbl-001"] = map[string]any{"source_range": "A1:C5", "has_formulas": true}

	contract := mkDoc(testHost, "contract-a1", "docs", "pdf", "A1 合同", []string{"合同"},
		"A1 项目服务合同", ago(10*24*time.Hour),
		protocol.DPEPage{Title: "封面", Elements: []protocol.DPEElementDetail{
			el("h-c1", "heading", "服务合同", map[string]any{"level": 1, "text": "服务合同"}),
			el("txt-c1", "text", "合同双方", map[string]any{"text": "甲方：示例科技有限公司\n乙方：A1 项目组"}),
		}},
		protocol.DPEPage{Title: "条款", Elements: []protocol.DPEElementDetail{
			el("lst-c2", "list", "主要条款", map[string]any{"ordered": false, "items": []any{"服务期限 12 个月", "按季度付款", "保密义务"}}),
		}},
	)

	readme := mkDoc(testHost, "readme", "docs", "md", "README — smcp-browse", []string{"guide", "cli"},
		"How to run the demo and browse documents from the terminal.", ago(2*time.Hour),
		protocol.DPEPage{Title: "Getting started", Elements: []protocol.DPEElementDetail{
			el("h-r1", "heading", "Getting started", map[string]any{"level": 1, "text": "Getting started"}),
			el("txt-r1", "text", "intro", map[string]any{"text": "Run the demo, then press / to filter the catalog by keywords."}),
			el("code-r1", "code", "demo command", map[string]any{"language": "sh", "code": "smcp-browse --demo --docs ./testdata/corpus"}),
			el("lnk-r1", "link", "spec link", map[string]any{"text": "Finder spec", "url": "https://example.com/finder"}),
		}},
		protocol.DPEPage{Title: "Keys", Elements: []protocol.DPEElementDetail{
			el("lst-r2", "list", "keys", map[string]any{"ordered": false, "items": []any{"enter opens", "esc goes back", "? shows help"}}),
		}},
	)

	var salesRows []any
	for i, region := range []string{"North", "South", "East", "West", "Central", "Overseas"} {
		salesRows = append(salesRows, []any{region, fmt.Sprintf("%d", 1200+i*130), fmt.Sprintf("%+d%%", 3+i)})
	}
	sales := mkDoc(testHost, "sales-q3", "docs", "csv", "Q3 sales by region", []string{"sales", "finance"},
		"Quarterly sales per region with growth.", ago(26*time.Hour),
		protocol.DPEPage{Title: "sales-q3.csv", Elements: []protocol.DPEElementDetail{
			el("tbl-s1", "table", "sales table (6 rows)", map[string]any{"headers": []any{"Region", "Sales", "Growth"}, "rows": salesRows}),
		}},
	)

	roadmap := mkDoc(testHost, "roadmap", "docs", "pptx", "Product roadmap 2027", []string{"plan"},
		"Themes and milestones for next year.", ago(40*24*time.Hour),
		protocol.DPEPage{Title: "Themes", Elements: []protocol.DPEElementDetail{
			el("h-p1", "heading", "Themes", map[string]any{"level": 1, "text": "Themes"}),
			el("img-p1", "image", "timeline picture", map[string]any{"alt": "timeline", "description": "A timeline from Q1 to Q4"}),
		}},
		protocol.DPEPage{Title: "Milestones", Elements: []protocol.DPEElementDetail{
			el("dg-p2", "diagram", "release train", map[string]any{"title": "Release train", "description": "Monthly releases"}),
		}},
	)

	notes := mkDoc(testHost, "notes", "docs", "txt", "Meeting notes \x1b]0;pwned\x07(untrusted)", []string{"notes"},
		"Notes with \x1b[31mcontrol\x1b[0m sequences.", ago(5*time.Minute),
		protocol.DPEPage{Title: "notes.txt", Elements: []protocol.DPEElementDetail{
			el("txt-n1", "text", "notes body", map[string]any{"text": "Decisions:\x1b[2J ship it.\x07 Owner: \x1b]8;;http://evil\x1b\\Ann\x1b]8;;\x1b\\."}),
		}},
	)

	onboarding := mkDoc("com.smcp.wiki", "onboarding", "wiki", "docx", "Onboarding guide", []string{"guide", "hr"},
		"First week checklist.", ago(400*24*time.Hour),
		protocol.DPEPage{Title: "Week one", Elements: []protocol.DPEElementDetail{
			el("lst-o1", "list", "checklist", map[string]any{"ordered": true, "items": []any{"Laptop", "Accounts", "Meet the team"}}),
		}},
	)
	return []fakeDoc{report, contract, readme, sales, roadmap, notes, onboarding}
}

func newFake() *fakeBackend {
	return &fakeBackend{
		office:    "office-1",
		computers: []string{"laptop", "build-box"},
		docs:      sampleCorpus(),
		desktop: []string{
			"window://com.smcp.docs/recent?priority=80\n\nRecently opened:\n- 2026 年度报告\n- README — smcp-browse",
			"window://com.example.logger\n\n[2026-11-22 11:58:01] INFO indexing finished (7 documents)\n[2026-11-22 11:59:30] WARN notes.txt has control characters",
		},
		skills: []protocol.A2CSkillRef{
			{Name: "pdf-tools", Source: "user", Path: "/home/u/skills/pdf-tools", Description: "Fill and merge PDF forms", Tags: []string{"pdf", "forms"}, License: "MIT"},
			{Name: "mcp:docs:summarize", Source: "mcp:docs", URI: "skill://docs.local/summarize", Path: "/tmp/s/docs/summarize", Description: "Summarise a document \x1b[31min red\x1b[0m", AllowedTools: []string{"Read"}},
		},
		tools:   sampleTools(),
		results: sampleResults(),
		blobs:   map[string][]byte{"h-shot": samplePNG},
		skillMD: map[string]string{
			"pdf-tools":          "# PDF tools\n\nRun `scripts/fill.py` with the form:\n\n- **fill** a form\n- merge files\n",
			"mcp:docs:summarize": "# Summarize\n\nRead the document, then write five lines.\n",
		},
	}
}

// bigCorpus returns n generated documents.
func bigCorpus(n int) []fakeDoc {
	docs := make([]fakeDoc, n)
	types := []string{"pdf", "xlsx", "docx", "md", "csv", "pptx", "txt"}
	for i := range docs {
		ref := fmt.Sprintf("doc-%05d", i)
		docs[i] = fakeDoc{sum: protocol.DPEDocumentSummary{
			DocRef: ref, URI: dpe.Document(testHost, ref).String(), FileURI: "file:///big/" + ref,
			FileType: types[i%len(types)], Title: fmt.Sprintf("Generated document number %d", i),
			PageCount: 1 + i%40, Keywords: []string{fmt.Sprintf("k%d", i%13)}, Summary: "generated",
			Server: "docs", LastModified: testNow.Add(-time.Duration(i) * time.Minute).Format(time.RFC3339),
		}}
	}
	return docs
}

// bigTablePage returns a page holding one table of rows rows.
func bigTablePage(rows int) *protocol.DPEPage {
	rs := make([]any, rows)
	for i := range rs {
		rs[i] = []any{fmt.Sprintf("%d", i), fmt.Sprintf("item %d", i), fmt.Sprintf("%d.%02d", i*37, i%100), "a note about row " + fmt.Sprint(i)}
	}
	return &protocol.DPEPage{
		PageIndex: 0, Title: "Ledger", DocRef: "ledger", URI: dpe.Page(testHost, "ledger", 0).String(),
		Elements: []protocol.DPEElementDetail{
			el("h-l", "heading", "Ledger", map[string]any{"level": 1, "text": "Ledger"}),
			el("tbl-l", "table", "ledger", map[string]any{"headers": []any{"id", "name", "amount", "note"}, "rows": rs}),
		},
		ElementCount: 2,
	}
}

// sampleTools are the fake computer's tools: a document server's, with
// a2c_tool_meta tags as the Computer sends them (a JSON string), and an
// image tool with untrusted text in its description.
func sampleTools() []protocol.SMCPTool {
	return []protocol.SMCPTool{
		{Name: "docs__fs_tree", BundleID: "docs", Description: "List the folder tree under a path, breadth first, within a budget of entries.",
			ParamsSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"folder, relative to the root"},` +
				`"max_entries":{"type":"integer","description":"entry budget","default":200},"hidden":{"type":"boolean"}},"required":["path","max_entries"]}`),
			Meta: map[string]any{protocol.MetaToolMeta: `{"tags":["fs","read"]}`}},
		{Name: "docs__fs_grep", BundleID: "docs", Description: "Search file contents for a pattern.",
			ParamsSchema: json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"},"mode":{"enum":["literal","regex"]},` +
				`"paths":{"type":"array","items":{"type":"string"}},"limits":{"type":"object","properties":{"files":{"type":"integer"}},"required":["files"]}},` +
				`"required":["pattern","mode","paths","limits"]}`),
			Meta: map[string]any{protocol.MetaToolMeta: map[string]any{"tags": []any{"fs", "search"}}}},
		{Name: "shots__screenshot", BundleID: "shots", Description: "Take a screenshot \x1b[31mnow\x1b[0m",
			ParamsSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
	}
}

// samplePNG is the screenshot's bytes, kept by the computer under the
// handle h-shot.
var samplePNG = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 3000)...)

// sampleResults answer the screenshot tool: a text item and the image by
// blob handle, as a Computer sends an image over its inline budget.
func sampleResults() map[string]*protocol.CallToolResult {
	return map[string]*protocol.CallToolResult{
		"shots__screenshot": {Content: []protocol.ToolContent{
			{Type: "text", Text: "Captured the screen (1280×800) \x1b]0;pwned\x07at 12:00."},
			{Type: "image", MIMEType: "image/png", Meta: map[string]any{
				protocol.MetaBlobHandle: "h-shot", protocol.MetaTotalSize: len(samplePNG), protocol.MetaSHA256: "sha"}},
		}},
	}
}
