package docserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// docRefOf finds the doc_ref of a corpus path through resources/list.
func docRefOf(t testing.TB, c *client.Client, path string) string {
	t.Helper()
	all, _ := listAll(t, c)
	for _, r := range all {
		if p, _ := r.Meta.AdditionalFields["path"].(string); p == path {
			return r.Meta.AdditionalFields["doc_ref"].(string)
		}
	}
	t.Fatalf("%s not listed", path)
	return ""
}

func TestErrorsCarryProtocolCodes(t *testing.T) {
	dir := copyCorpus(t)
	s, c, _ := startInProcess(t, dir, Options{})
	ref := docRefOf(t, c, "data/sales.csv")
	tr := c.GetTransport()
	doc := "dpe://" + testHost + "/" + ref
	tests := []struct {
		uri  string
		code int
		data map[string]any
	}{
		{"dpe://" + testHost + "/no-such-doc", protocol.CodeDocumentNotFound, map[string]any{"doc_ref": "no-such-doc"}},
		{"dpe://" + testHost + "/no-such-doc/pages/0", protocol.CodeDocumentNotFound, map[string]any{"doc_ref": "no-such-doc"}},
		{doc + "/pages/3", protocol.CodePageOutOfRange, map[string]any{"page_index": 3.0, "page_count": 3.0}},
		{doc + "/pages/99?format=markdown", protocol.CodePageOutOfRange, map[string]any{"page_index": 99.0, "page_count": 3.0}},
		{doc + "/elements/tbl-9-1", protocol.CodeElementNotFound, map[string]any{"element_id": "tbl-9-1"}},
		{doc + "/elements/nope", protocol.CodeElementNotFound, map[string]any{"element_id": "nope"}},
		{doc + "/tables/1", protocol.CodeInvalidDPEURI, map[string]any{"uri": doc + "/tables/1", "rule": 3.0}},
		{doc + "/pages/-1", protocol.CodeInvalidDPEURI, map[string]any{"uri": doc + "/pages/-1", "rule": 3.0}},
		{doc + "?format=xml", protocol.CodeInvalidDPEURI, map[string]any{"uri": doc + "?format=xml", "rule": 4.0}},
		{doc + "?depth=all", protocol.CodeInvalidDPEURI, map[string]any{"uri": doc + "?depth=all", "rule": 5.0}},
		{doc + "?depth=pages&offset=-1", protocol.CodeInvalidDPEURI, map[string]any{"uri": doc + "?depth=pages&offset=-1", "rule": 6.0}},
		{doc + "?limit=101", protocol.CodeInvalidDPEURI, map[string]any{"uri": doc + "?limit=101", "rule": 7.0}},
		{doc + "/pages/0?categories=table,bogus", protocol.CodeInvalidDPEURI, map[string]any{"uri": doc + "/pages/0?categories=table,bogus", "rule": 8.0}},
		{"dpe://" + testHost + "x/" + ref, mcp.RESOURCE_NOT_FOUND, map[string]any{"uri": "dpe://" + testHost + "x/" + ref}},
	}
	for i, tt := range tests {
		e := rpcError(t, tr, 1000+i, tt.uri)
		if e.Code != tt.code {
			t.Errorf("%s: code %d (%s), want %d", tt.uri, e.Code, e.Message, tt.code)
			continue
		}
		got, _ := json.Marshal(e.Data)
		want, _ := json.Marshal(tt.data)
		if string(got) != string(want) {
			t.Errorf("%s: data %s, want %s", tt.uri, got, want)
		}
		if e.Message == "" {
			t.Errorf("%s: empty message", tt.uri)
		}
	}
	// A URI of no template of this host is mcp-go's resource-not-found.
	if e := rpcError(t, tr, 2000, "file:///etc/passwd"); e.Code != mcp.RESOURCE_NOT_FOUND {
		t.Errorf("foreign scheme: code %d", e.Code)
	}
	// Every recorded error was consumed by its response.
	if n := s.ledger.Pending(); n != 0 {
		t.Errorf("%d errors left in the ledger", n)
	}
}

func TestLevelsAndQueryParameters(t *testing.T) {
	dir := copyCorpus(t)
	_, c, _ := startInProcess(t, dir, Options{})
	ref := docRefOf(t, c, "reports/q3-report.md")
	doc := "dpe://" + testHost + "/" + ref

	var meta protocol.DPEDocument
	readJSON(t, c, doc, &meta)
	if meta.Pages != nil || meta.PageOffset != nil || meta.PageCount != 4 {
		t.Errorf("depth=metadata (default) = %+v", meta)
	}
	var pages protocol.DPEDocument
	readJSON(t, c, doc+"?depth=pages&offset=1&limit=2", &pages)
	if len(pages.Pages) != 2 || pages.Pages[0].PageIndex != 1 || *pages.PageOffset != 1 || *pages.PageLimit != 2 || *pages.PageTotal != 4 {
		t.Errorf("offset/limit window = %+v", pages)
	}
	if pages.Pages[0].URI != dpe.Page(testHost, ref, 1).String() || pages.Pages[0].DocRef != ref {
		t.Errorf("page summary = %+v", pages.Pages[0])
	}
	readJSON(t, c, doc+"?depth=pages", &pages)
	if len(pages.Pages) != 4 || *pages.PageLimit != dpe.DefaultLimit || *pages.PageOffset != 0 {
		t.Errorf("default window = %+v", pages)
	}
	var past protocol.DPEDocument
	readJSON(t, c, doc+"?depth=pages&offset=10", &past)
	if len(past.Pages) != 0 || *past.PageTotal != 4 || *past.PageOffset != 10 {
		t.Errorf("offset past the end = %+v", past)
	}
	if raw, _ := readText(t, c, doc+"?depth=pages&offset=10"); !strings.Contains(raw, `"pages":[]`) {
		t.Errorf("offset past the end: want an empty pages array, got %s", raw)
	}
	if md, _ := readText(t, c, doc+"?depth=pages&offset=10&format=markdown"); !strings.Contains(md, "## Pages (none from 10; 4 in all)") {
		t.Errorf("offset past the end, markdown:\n%s", md)
	}

	var page protocol.DPEPage
	readJSON(t, c, doc+"/pages/1", &page)
	all := page.ElementCount
	readJSON(t, c, doc+"/pages/1?categories=table,link", &page)
	if page.ElementCount != 2 || len(page.Elements) != 2 || page.Elements[0].Category != "table" || page.Elements[1].Category != "link" {
		t.Errorf("categories filter: %d of %d: %+v", page.ElementCount, all, page.Elements)
	}
	readJSON(t, c, doc+"/pages/1?categories=chart", &page)
	if page.ElementCount != 0 || page.Elements == nil {
		t.Errorf("empty filter result = %+v", page)
	}
	text, mime := readText(t, c, doc+"/pages/1?format=text")
	if mime != "text/plain" || !strings.Contains(text, "July\t1,250\t+4%") {
		t.Errorf("text format: %s %q", mime, text)
	}
	md, mime := readText(t, c, doc+"/pages/1?format=markdown&categories=table")
	if mime != "text/markdown" || !strings.HasPrefix(md, "| Month     | Revenue (k$) | Growth |\n| --------- | -----------: | -----: |") {
		t.Errorf("markdown+categories: %s %q", mime, md)
	}
	md, _ = readText(t, c, doc+"?format=markdown&depth=pages")
	if !strings.HasPrefix(md, "# Q3 Operations Report") || !strings.Contains(md, "1. [Revenue](") {
		t.Errorf("Level 1 markdown = %q", md)
	}
	el, mime := readText(t, c, doc+"/elements/tbl-1-1?format=markdown")
	if mime != "text/markdown" || !strings.Contains(el, "| September |        1,420 |    +3% |") {
		t.Errorf("Level 3 markdown = %q", el)
	}
	var cat protocol.DPECatalog
	readJSON(t, c, "dpe://"+testHost+"?offset=10&limit=5", &cat)
	if cat.TotalCount != 12 || len(cat.Documents) != 2 {
		t.Errorf("catalog window: %d of %d", len(cat.Documents), cat.TotalCount)
	}
	for _, d := range cat.Documents {
		if d.Server != testHost || d.PageCount == 0 || d.LastModified != "2026-01-15T08:30:00Z" || !strings.HasPrefix(d.FileURI, "file:///") {
			t.Errorf("catalog entry = %+v", d)
		}
	}
}

func TestTemplatesAndCapabilities(t *testing.T) {
	dir := copyCorpus(t)
	_, c, _ := startInProcess(t, dir, Options{})
	ctx := context.Background()
	caps := c.GetServerCapabilities()
	if caps.Resources == nil || !caps.Resources.Subscribe || !caps.Resources.ListChanged || caps.Tools == nil || caps.Completions == nil {
		t.Errorf("capabilities = %+v", caps)
	}
	res, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tpl := range res.ResourceTemplates {
		got = append(got, tpl.URITemplate.Raw())
	}
	for _, want := range []string{"dpe://" + testHost + "/{doc_ref}/pages/{page_index}", "dpe://" + testHost + "/{doc_ref}/elements/{element_id}"} {
		if !strings.Contains(strings.Join(got, " "), want) {
			t.Errorf("templates %v lack %s", got, want)
		}
	}
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]mcp.Tool{}
	for _, tl := range tools.Tools {
		names[tl.Name] = tl
	}
	for _, n := range []string{"fs_tree", "fs_find", "fs_grep"} {
		tl, ok := names[n]
		if !ok {
			t.Fatalf("tool %s missing", n)
		}
		if tl.Annotations.ReadOnlyHint == nil || !*tl.Annotations.ReadOnlyHint || tl.Annotations.IdempotentHint == nil || !*tl.Annotations.IdempotentHint {
			t.Errorf("%s annotations = %+v", n, tl.Annotations)
		}
	}
}

func TestListPagingByPath(t *testing.T) {
	dir := t.TempDir()
	// 450 documents that all have the same title: paging by name (mcp-go's
	// default) would skip the ones after a page boundary.
	for i := 0; i < 450; i++ {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("d%02d", i%7), fmt.Sprintf("n%04d.md", i)), "# Same title\n\nbody\n")
	}
	s, c, _ := startInProcess(t, dir, Options{ListPageSize: 100})
	all, pages := listAll(t, c)
	if len(all) != 450 || pages != 5 {
		t.Fatalf("listed %d resources in %d pages, want 450 in 5", len(all), pages)
	}
	seen := map[string]bool{}
	prev := ""
	for _, r := range all {
		if seen[r.URI] {
			t.Fatalf("%s listed twice", r.URI)
		}
		seen[r.URI] = true
		p := r.Meta.AdditionalFields["path"].(string)
		if p <= prev {
			t.Fatalf("not sorted by path: %s after %s", p, prev)
		}
		prev = p
		if r.Name != "Same title" || r.Description != "body" || r.MIMEType != "application/json" || r.Annotations.LastModified == "" {
			t.Fatalf("resource = %+v", r)
		}
		// The listing carries what a catalog row shows before its Level 1
		// read: the file's URL among it.
		if fu, _ := r.Meta.AdditionalFields["file_uri"].(string); fu != "file://"+filepath.ToSlash(filepath.Join(s.rootDir, p)) {
			t.Fatalf("%s: file_uri %q", p, fu)
		}
		if _, err := dpe.Parse(r.URI); err != nil {
			t.Fatalf("listed URI %s: %v", r.URI, err)
		}
	}
	// Listing peeked the files but parsed none of them.
	if n := s.docs.lru.Len(); n != 0 {
		t.Errorf("listing parsed %d documents", n)
	}
}

func TestDocRefs(t *testing.T) {
	for rel, want := range map[string]string{
		"reports/Q3 Report.xlsx": "q3-report-",
		"a.md":                   "a-",
		"笔记.md":                  "doc-",
		"x/" + strings.Repeat("long-name-", 10) + ".txt": "long-name-long-name-long-name-lo-",
	} {
		got := DocRef(rel)
		if !strings.HasPrefix(got, want) || len(got) != len(want)+6 {
			t.Errorf("DocRef(%q) = %q, want %s + 6 hex", rel, got, want)
		}
		if DocRef(rel) != got {
			t.Errorf("DocRef(%q) not stable", rel)
		}
		if _, err := dpe.Parse("dpe://h/" + got); err != nil || strings.ContainsAny(got, "%/?#") {
			t.Errorf("DocRef(%q) = %q is not URL-safe", rel, got)
		}
	}
	if DocRef("a/x.md") == DocRef("b/x.md") {
		t.Error("same name in two folders gives the same doc_ref")
	}
}

func TestCompletion(t *testing.T) {
	dir := copyCorpus(t)
	_, c, _ := startInProcess(t, dir, Options{})
	ref := docRefOf(t, c, "reports/q3-report.md")
	complete := func(tpl, arg, value string, ctxArgs map[string]string) mcp.Completion {
		t.Helper()
		req := mcp.CompleteRequest{}
		req.Params.Ref = mcp.ResourceReference{Type: "ref/resource", URI: "dpe://" + testHost + tpl}
		req.Params.Argument = mcp.CompleteArgument{Name: arg, Value: value}
		req.Params.Context = mcp.CompleteContext{Arguments: ctxArgs}
		res, err := c.Complete(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return res.Completion
	}
	got := complete("/{doc_ref}/pages/{page_index}", "doc_ref", "q3", nil)
	if len(got.Values) != 1 || got.Values[0] != ref || got.Total != 1 || got.HasMore {
		t.Errorf("doc_ref q3 = %+v", got)
	}
	if got := complete("/{doc_ref}/pages/{page_index}", "doc_ref", "", nil); got.Total != 12 {
		t.Errorf("all doc_refs = %+v", got)
	}
	got = complete("/{doc_ref}/pages/{page_index}", "page_index", "", map[string]string{"doc_ref": ref})
	if strings.Join(got.Values, ",") != "0,1,2,3" || got.Total != 4 {
		t.Errorf("page_index = %+v", got)
	}
	got = complete("/{doc_ref}/elements/{element_id}", "element_id", "tbl", map[string]string{"doc_ref": ref})
	if strings.Join(got.Values, ",") != "tbl-1-1" {
		t.Errorf("element_id tbl = %+v", got)
	}
	got = complete("/{doc_ref}/elements/{element_id}", "element_id", "", map[string]string{"doc_ref": ref, "page_index": "2"})
	for _, v := range got.Values {
		if !strings.Contains(v, "-2-") {
			t.Errorf("element_id on page 2 = %v", got.Values)
		}
	}
	if got := complete("/{doc_ref}/pages/{page_index}", "page_index", "", map[string]string{"doc_ref": "nope"}); len(got.Values) != 0 {
		t.Errorf("unknown doc_ref gave %v", got.Values)
	}
	// Bounded to 100 with hasMore.
	big := t.TempDir()
	for i := 0; i < 150; i++ {
		writeFile(t, filepath.Join(big, fmt.Sprintf("f%03d.txt", i)), "x")
	}
	_, c2, _ := startInProcess(t, big, Options{})
	req := mcp.CompleteRequest{}
	req.Params.Ref = mcp.ResourceReference{Type: "ref/resource", URI: "dpe://" + testHost + "/{doc_ref}"}
	req.Params.Argument = mcp.CompleteArgument{Name: "doc_ref", Value: "f"}
	res, err := c2.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Completion.Values) != 100 || res.Completion.Total != 150 || !res.Completion.HasMore {
		t.Errorf("bounded completion: %d values, total %d, hasMore %v", len(res.Completion.Values), res.Completion.Total, res.Completion.HasMore)
	}
}

func TestNeverReadsOutsideRoot(t *testing.T) {
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret.md"), "# Secret\n\ntop secret\n")
	writeFile(t, filepath.Join(outside, "dir", "more.md"), "# More secret\n")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ok.md"), "# OK\n\nfine\n")
	writeFile(t, filepath.Join(dir, "sub", "inner.md"), "# Inner\n")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "link-out.md")))
	must(os.Symlink(filepath.Join(outside, "dir"), filepath.Join(dir, "dir-out")))
	must(os.Symlink("sub/inner.md", filepath.Join(dir, "link-in.md")))
	must(os.Symlink("../../"+filepath.Base(outside)+"/secret.md", filepath.Join(dir, "sub", "rel-out.md")))

	_, c, _ := startInProcess(t, dir, Options{})
	all, _ := listAll(t, c)
	var paths []string
	for _, r := range all {
		paths = append(paths, r.Meta.AdditionalFields["path"].(string))
		text, _ := readText(t, c, r.URI+"/pages/0?format=text")
		if strings.Contains(text, "secret") {
			t.Errorf("%s served text from outside the root: %q", r.URI, text)
		}
	}
	if got := strings.Join(paths, ","); got != "link-in.md,ok.md,sub/inner.md" {
		t.Errorf("listed %s; links out of the root must be left out", got)
	}
	ctx := context.Background()
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		req := mcp.CallToolRequest{}
		req.Params.Name = name
		req.Params.Arguments = args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, p := range []string{"..", "../" + filepath.Base(outside), "/etc", outside, "dir-out", "sub/../..", "sub/../../x"} {
		for _, tool := range []string{"fs_tree", "fs_find", "fs_grep"} {
			res := call(tool, map[string]any{"path": p, "pattern": "secret"})
			if !res.IsError {
				t.Errorf("%s path=%q: not an error: %v", tool, p, res.Content)
			}
		}
	}
	// Whole-tree tools never show or search what links point to outside.
	res := call("fs_grep", map[string]any{"pattern": "secret", "ignoreCase": true})
	if b, _ := json.Marshal(res.StructuredContent); strings.Contains(string(b), `"line"`) {
		t.Errorf("fs_grep found text outside the root: %s", b)
	}
	res = call("fs_find", map[string]any{"pattern": "**"})
	if b, _ := json.Marshal(res.StructuredContent); strings.Contains(string(b), "secret") || strings.Contains(string(b), "more.md") {
		t.Errorf("fs_find lists outside the root: %s", b)
	}
}

func TestCorruptFilesDoNotBreakTheCatalog(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "good.md"), "# Good\n\ntext\n")
	writeFile(t, filepath.Join(dir, "broken.xlsx"), "not a zip")
	writeFile(t, filepath.Join(dir, "broken.pdf"), "%PDF-1.4 garbage")
	writeFile(t, filepath.Join(dir, "broken.docx"), "PK\x03\x04garbage")
	big := strings.Repeat("x", 2048)
	writeFile(t, filepath.Join(dir, "big.txt"), big)
	_, c, _ := startInProcess(t, dir, Options{MaxFileSize: 1024})
	// Broken files and the file over the size bound are listed, marked
	// unreadable with the reason; the good one is listed normally.
	all := listSettled(t, c)
	if len(all) != 5 {
		t.Fatalf("listed %d resources, want 5: %v", len(all), all)
	}
	if r, _ := resourceByPath(all, "big.txt"); !strings.Contains(listedUnreadable(r), "over this server's bound") {
		t.Errorf("big.txt listed as %+v", r)
	}
	for _, r := range all {
		rel := r.Meta.AdditionalFields["path"]
		reason := listedUnreadable(r)
		switch rel {
		case "good.md":
			if r.Name != "Good" || reason != "" {
				t.Errorf("good.md listed as %q (unreadable %q)", r.Name, reason)
			}
		default:
			if reason == "" || r.Description != "Unreadable: "+reason || r.Name != rel {
				t.Errorf("%s listed as %q %q (unreadable %q)", rel, r.Name, r.Description, reason)
			}
		}
	}
	var cat protocol.DPECatalog
	readJSON(t, c, "dpe://"+testHost, &cat)
	if cat.TotalCount != 5 || len(cat.Documents) != 5 {
		t.Errorf("catalog = %d of %d", len(cat.Documents), cat.TotalCount)
	}
	for _, d := range cat.Documents {
		if (d.Unreadable == "") != (d.Title == "Good") {
			t.Errorf("catalog entry %s: unreadable %q", d.Title, d.Unreadable)
		}
	}
	// The Level 1 read of a corrupt document says why; its pages are an
	// error for that document only.
	ref := DocRef("broken.pdf")
	var doc protocol.DPEDocument
	readJSON(t, c, "dpe://"+testHost+"/"+ref, &doc)
	if doc.Unreadable == "" || doc.PageCount != 0 || doc.Title != "broken.pdf" {
		t.Errorf("Level 1 of broken.pdf = %+v", doc)
	}
	e := rpcError(t, c.GetTransport(), 77, "dpe://"+testHost+"/"+ref+"/pages/0")
	if e.Code != protocol.CodePageOutOfRange || !strings.Contains(e.Message, "broken.pdf cannot be read") || !strings.Contains(e.Message, doc.Unreadable) {
		t.Errorf("corrupt read: %d %s", e.Code, e.Message)
	}
	good, _ := resourceByPath(all, "good.md")
	readText(t, c, good.URI) // the server still answers
}

func TestDocumentChangesAreSeenOnRead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	writeFile(t, p, "# First\n\none\n")
	s, err := New(dir, Options{Host: testHost, Logger: testLogger(t)}) // no watcher
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c, _ := connect(t, s.InProcessTransport())
	uri := "dpe://" + testHost + "/" + DocRef("a.md")
	var d protocol.DPEDocument
	readJSON(t, c, uri, &d)
	if d.Title != "First" {
		t.Fatalf("title %q", d.Title)
	}
	writeFile(t, p, "# Second title\n\ntwo\n")
	later := time.Now().Add(time.Minute)
	os.Chtimes(p, later, later)
	readJSON(t, c, uri, &d)
	if d.Title != "Second title" {
		t.Errorf("after an edit the title is %q: the cache was not keyed by the file version", d.Title)
	}
}

func TestWatcherNotifications(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.md"), "# A\n\none\n")
	writeFile(t, filepath.Join(dir, "b.md"), "# B\n\none\n")
	writeFile(t, filepath.Join(dir, "z.md"), "# Z\n") // last in path order: a marker
	// A debounce well above the ~25 ms the burst below takes, so a loaded
	// machine does not split it.
	_, legacy, ln := startInProcess(t, dir, Options{Debounce: 250 * time.Millisecond})
	uriA := "dpe://" + testHost + "/" + DocRef("a.md")
	uriB := "dpe://" + testHost + "/" + DocRef("b.md")

	// A new file, also in a new directory: list_changed.
	writeFile(t, filepath.Join(dir, "new", "c.md"), "# C\n")
	ln.wait(t, mcp.MethodNotificationResourcesListChanged, "", 5*time.Second)
	all, _ := listAll(t, legacy)
	if len(all) != 4 {
		t.Fatalf("after create: %d resources", len(all))
	}
	// A file in the directory created after the watcher started is watched.
	writeFile(t, filepath.Join(dir, "new", "d.md"), "# D\n")
	ln.wait(t, mcp.MethodNotificationResourcesListChanged, "", 5*time.Second)

	// A modified file: updated with its Level 1 URI, sent to this session
	// because it never subscribed to anything.
	ln.reset()
	writeFile(t, filepath.Join(dir, "a.md"), "# A changed\n\ntwo\n")
	ln.wait(t, mcp.MethodNotificationResourceUpdated, uriA, 5*time.Second)
	var d protocol.DPEDocument
	readJSON(t, legacy, uriA, &d)
	if d.Title != "A changed" {
		t.Errorf("after the update the title is %q", d.Title)
	}
	ln.none(t, mcp.MethodNotificationResourcesListChanged, "") // it would have come before updated

	// Rapid writes are debounced into one notification.
	ln.reset()
	for i := 0; i < 5; i++ {
		writeFile(t, filepath.Join(dir, "b.md"), fmt.Sprintf("# B %d\n", i))
		time.Sleep(5 * time.Millisecond)
	}
	ln.wait(t, mcp.MethodNotificationResourceUpdated, uriB, 5*time.Second)
	// A change after the burst: its notification comes after any the
	// burst could still cause.
	writeFile(t, filepath.Join(dir, "z.md"), "# Z changed\n")
	ln.wait(t, mcp.MethodNotificationResourceUpdated, "dpe://"+testHost+"/"+DocRef("z.md"), 5*time.Second)
	ln.mu.Lock()
	extra := len(ln.all)
	ln.mu.Unlock()
	if extra != 0 {
		t.Errorf("%d more notifications after a debounced burst", extra)
	}

	// A subscribed session hears only about what it subscribed to.
	ln.reset()
	ctx := context.Background()
	sub := mcp.SubscribeRequest{}
	uriZ := "dpe://" + testHost + "/" + DocRef("z.md")
	sub.Params.URI = uriZ + "/pages/0" // any URI of the document counts
	//lint:ignore SA1019 resources/subscribe is what clients of protocol 2025-11-25 and older (the TypeScript SDK) use
	if err := legacy.Subscribe(ctx, sub); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "b.md"), "# B again\n")
	writeFile(t, filepath.Join(dir, "z.md"), "# Z again\n")
	ln.wait(t, mcp.MethodNotificationResourceUpdated, uriZ, 5*time.Second)
	ln.none(t, mcp.MethodNotificationResourceUpdated, uriB) // b's would have come first

	// Delete and rename: list_changed.
	ln.reset()
	if err := os.Remove(filepath.Join(dir, "b.md")); err != nil {
		t.Fatal(err)
	}
	ln.wait(t, mcp.MethodNotificationResourcesListChanged, "", 5*time.Second)
	if err := os.Rename(filepath.Join(dir, "new"), filepath.Join(dir, "renamed")); err != nil {
		t.Fatal(err)
	}
	ln.wait(t, mcp.MethodNotificationResourcesListChanged, "", 5*time.Second)
	all, _ = listAll(t, legacy)
	var paths []string
	for _, r := range all {
		paths = append(paths, r.Meta.AdditionalFields["path"].(string))
	}
	if got := strings.Join(paths, ","); got != "a.md,renamed/c.md,renamed/d.md,z.md" {
		t.Errorf("after delete+rename: %s", got)
	}
}

func TestModernClientListen(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.md"), "# A\n")
	s, _, _ := startInProcess(t, dir, Options{Debounce: 50 * time.Millisecond})
	c, n := connectVersion(t, s.InProcessTransport(), "")
	if v := c.ProtocolVersion(); v != mcp.ProtocolVersion20260728 {
		t.Fatalf("client negotiated %s, want %s", v, mcp.ProtocolVersion20260728)
	}
	uriA := "dpe://" + testHost + "/" + DocRef("a.md")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go c.Listen(ctx, mcp.SubscriptionFilter{ResourcesListChanged: true, ResourceSubscriptions: []string{uriA}})
	n.wait(t, mcp.MethodNotificationSubscriptionsAcknowledged, "", 10*time.Second) // the stream is open
	writeFile(t, filepath.Join(dir, "a.md"), "# A2\n")
	n.wait(t, mcp.MethodNotificationResourceUpdated, uriA, 5*time.Second)
	writeFile(t, filepath.Join(dir, "b.md"), "# B\n")
	n.wait(t, mcp.MethodNotificationResourcesListChanged, "", 5*time.Second)
}
