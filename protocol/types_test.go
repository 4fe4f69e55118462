package protocol

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func intp(n int) *int { return &n }

// TestWireNames marshals each payload and compares the exact JSON: field
// names and which fields are left out when empty must match the spec
// (finder-sdk-guide data structures and the base protocol's).
func TestWireNames(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"GetFinderReq minimal", GetFinderReq{Agent: "a", ReqID: "r", Computer: "c"},
			`{"agent":"a","req_id":"r","computer":"c"}`},
		{"GetFinderReq full, zero offset kept", GetFinderReq{Agent: "a", ReqID: "r", Computer: "c", Keywords: []string{"财务"}, FileType: "pdf", Offset: intp(0), Limit: intp(20)},
			`{"agent":"a","req_id":"r","computer":"c","keywords":["财务"],"file_type":"pdf","offset":0,"limit":20}`},
		{"GetFinderRet", GetFinderRet{Documents: []DPEDocumentSummary{}, TotalCount: 0, ReqID: "r"},
			`{"documents":[],"total_count":0,"req_id":"r"}`},
		{"DPEDocumentSummary required only", DPEDocumentSummary{DocRef: "d", URI: "dpe://h/d", FileURI: "file:///x", FileType: "pdf", Title: "T", PageCount: 0, Server: "s"},
			`{"doc_ref":"d","uri":"dpe://h/d","file_uri":"file:///x","file_type":"pdf","title":"T","page_count":0,"server":"s"}`},
		{"DPEDocumentSummary full", DPEDocumentSummary{DocRef: "d", URI: "u", FileURI: "f", FileType: "xlsx", Title: "T", PageCount: 12,
			Keywords: []string{"k"}, Summary: "s", Server: "srv", LastModified: "2026-01-15T08:30:00Z"},
			`{"doc_ref":"d","uri":"u","file_uri":"f","file_type":"xlsx","title":"T","page_count":12,"keywords":["k"],"summary":"s","server":"srv","last_modified":"2026-01-15T08:30:00Z"}`},
		{"DPEPageSummary", DPEPageSummary{PageIndex: 0, Title: "概览", ElementCount: 8, URI: "dpe://h/d/pages/0"},
			`{"page_index":0,"title":"概览","element_count":8,"uri":"dpe://h/d/pages/0"}`},
		{"DPEPageSummary with doc_ref", DPEPageSummary{PageIndex: 1, Title: "t", ElementCount: 0, URI: "u", DocRef: "d"},
			`{"page_index":1,"title":"t","element_count":0,"uri":"u","doc_ref":"d"}`},
		{"DPEElementDetail in a page", DPEElementDetail{ElementID: "h-001", Category: "heading", Summary: "s", Content: map[string]any{"level": 1}},
			`{"element_id":"h-001","category":"heading","summary":"s","content":{"level":1}}`},
		{"DPEElementDetail level 3, page 0 kept", DPEElementDetail{ElementID: "e", Category: "table", Content: map[string]any{}, DocRef: "d", PageIndex: intp(0),
			URI: "dpe://h/d/elements/e", Metadata: map[string]any{"has_formulas": true}},
			`{"element_id":"e","category":"table","content":{},"doc_ref":"d","page_index":0,"uri":"dpe://h/d/elements/e","metadata":{"has_formulas":true}}`},
		{"DPEDocument depth=metadata", DPEDocument{DocRef: "d", URI: "u", FileURI: "f", FileType: "pdf", Title: "T", PageCount: 5},
			`{"doc_ref":"d","uri":"u","file_uri":"f","file_type":"pdf","title":"T","page_count":5}`},
		{"DPEDocument depth=pages", DPEDocument{DocRef: "d", URI: "u", FileURI: "f", FileType: "pdf", Title: "T", PageCount: 5,
			Pages: []DPEPageSummary{{PageIndex: 0, Title: "p", ElementCount: 1, URI: "u/pages/0", DocRef: "d"}}, PageOffset: intp(0), PageLimit: intp(20), PageTotal: intp(5)},
			`{"doc_ref":"d","uri":"u","file_uri":"f","file_type":"pdf","title":"T","page_count":5,"page_offset":0,"page_limit":20,"page_total":5,"pages":[{"page_index":0,"title":"p","element_count":1,"uri":"u/pages/0","doc_ref":"d"}]}`},
		{"DPEDocument depth=pages of a PDF with bookmarks, a page not read", DPEDocument{DocRef: "d", URI: "u", FileURI: "f", FileType: "pdf", Title: "T", PageCount: 5,
			Pages:      []DPEPageSummary{{PageIndex: 3, Title: "Intro", ElementCount: ElementsNotCounted, URI: "u/pages/3", Bookmarks: []DPEBookmark{{Title: "Intro", Level: 1}, {Title: "Scope", Level: 2}}}},
			PageOffset: intp(3), PageLimit: intp(1), PageTotal: intp(5), BookmarkCount: 9},
			`{"doc_ref":"d","uri":"u","file_uri":"f","file_type":"pdf","title":"T","page_count":5,"page_offset":3,"page_limit":1,"page_total":5,"bookmark_count":9,` +
				`"pages":[{"page_index":3,"title":"Intro","element_count":-1,"uri":"u/pages/3","bookmarks":[{"title":"Intro","level":1},{"title":"Scope","level":2}]}]}`},
		{"DPEPage", DPEPage{PageIndex: 0, Title: "概览", DocRef: "d", URI: "u", Elements: []DPEElementDetail{}, ElementCount: 0},
			`{"page_index":0,"title":"概览","doc_ref":"d","uri":"u","elements":[],"element_count":0}`},
		{"UpdateComputerConfigReq", UpdateComputerConfigReq{Computer: "c"}, `{"computer":"c"}`},
		{"EnterOfficeReq", EnterOfficeReq{Role: RoleAgent, Name: "n", OfficeID: "o"}, `{"role":"agent","name":"n","office_id":"o"}`},
		{"LeaveOfficeReq", LeaveOfficeReq{OfficeID: "o"}, `{"office_id":"o"}`},
		{"EnterOfficeNotification computer", EnterOfficeNotification{OfficeID: "o", Computer: "c"}, `{"office_id":"o","computer":"c"}`},
		{"LeaveOfficeNotification agent", LeaveOfficeNotification{OfficeID: "o", Agent: "a"}, `{"office_id":"o","agent":"a"}`},
		{"ListRoomReq", ListRoomReq{Agent: "a", ReqID: "r", OfficeID: "o"}, `{"agent":"a","req_id":"r","office_id":"o"}`},
		{"SessionInfo", SessionInfo{SID: "s", Name: "n", Role: RoleComputer, OfficeID: "o"}, `{"sid":"s","name":"n","role":"computer","office_id":"o"}`},
		{"SessionInfo empty", SessionInfo{}, `{}`},
		{"ListRoomRet", ListRoomRet{Sessions: []SessionInfo{{Name: "n"}}, ReqID: "r"}, `{"sessions":[{"name":"n"}],"req_id":"r"}`},
		{"GetDeskTopReq minimal", GetDeskTopReq{Agent: "a", ReqID: "r", Computer: "c"}, `{"agent":"a","req_id":"r","computer":"c"}`},
		{"GetDeskTopReq full", GetDeskTopReq{Agent: "a", ReqID: "r", Computer: "c", DesktopSize: intp(0), Window: "window://h"},
			`{"agent":"a","req_id":"r","computer":"c","desktop_size":0,"window":"window://h"}`},
		{"GetDeskTopRet", GetDeskTopRet{Desktops: []string{"window://h\n\nbody"}, ReqID: "r"}, `{"desktops":["window://h\n\nbody"],"req_id":"r"}`},
		{"ReadResourceReq", ReadResourceReq{Agent: "a", ReqID: "r", Computer: "c", URI: "dpe://h"}, `{"agent":"a","req_id":"r","computer":"c","uri":"dpe://h"}`},
		{"ReadResourceRet text", ReadResourceRet{Contents: []ResourceContents{{URI: "u", MIMEType: "application/json", Text: "{}"}}},
			`{"contents":[{"uri":"u","mimeType":"application/json","text":"{}"}]}`},
		{"ReadResourceRet blob", ReadResourceRet{Contents: []ResourceContents{{URI: "u", Blob: "AA=="}}}, `{"contents":[{"uri":"u","blob":"AA=="}]}`},
		{"ToolCallReq", ToolCallReq{Agent: "a", ReqID: "r", Computer: "c", ToolName: "t", Params: map[string]any{}, Timeout: 30},
			`{"agent":"a","req_id":"r","computer":"c","tool_name":"t","params":{},"timeout":30}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			// and it decodes back to the same value
			back := reflect.New(reflect.TypeOf(tt.v))
			if err := json.Unmarshal(got, back.Interface()); err != nil {
				t.Fatalf("decode: %v", err)
			}
			again, _ := json.Marshal(back.Elem().Interface())
			if string(again) != tt.want {
				t.Errorf("re-encoded %s", again)
			}
		})
	}
}

// TestSpecExamplesDecode decodes the spec's Level 1 and Level 2 examples
// and checks that re-encoding loses no field.
func TestSpecExamplesDecode(t *testing.T) {
	const level1 = `{"doc_ref":"rpt-2026","uri":"dpe://com.example.docs/rpt-2026","file_uri":"file:///data/reports/2026-annual.xlsx",
	  "file_type":"xlsx","title":"2026 年度报告","page_count":12,"keywords":["财务","年报"],"summary":"2026 年度财务与运营报告",
	  "last_modified":"2026-01-15T08:30:00Z",
	  "pages":[{"page_index":0,"title":"概览","element_count":8,"uri":"dpe://com.example.docs/rpt-2026/pages/0","doc_ref":"rpt-2026"}],
	  "page_offset":0,"page_limit":20,"page_total":12}`
	const level2 = `{"page_index":0,"title":"概览","doc_ref":"rpt-2026","uri":"dpe://com.example.docs/rpt-2026/pages/0",
	  "elements":[{"element_id":"tbl-001","category":"table","summary":"季度收入对比表（4行3列）",
	    "content":{"headers":["季度","收入（万元）","同比增长"],"rows":[["Q1","1,250","+12%"]]}}],"element_count":1}`
	const level3 = `{"element_id":"tbl-001","category":"table","doc_ref":"rpt-2026","page_index":0,
	  "uri":"dpe://com.example.docs/rpt-2026/elements/tbl-001","summary":"s",
	  "content":{"headers":["a"],"rows":[["1"]],"total_rows":1,"total_columns":1},"metadata":{"source_range":"A1:C5","has_formulas":true}}`
	for _, c := range []struct {
		name string
		raw  string
		v    any
	}{{"level 1", level1, &DPEDocument{}}, {"level 2", level2, &DPEPage{}}, {"level 3", level3, &DPEElementDetail{}}} {
		t.Run(c.name, func(t *testing.T) {
			if err := json.Unmarshal([]byte(c.raw), c.v); err != nil {
				t.Fatal(err)
			}
			out, _ := json.Marshal(c.v)
			var want, got any
			_ = json.Unmarshal([]byte(c.raw), &want)
			_ = json.Unmarshal(out, &got)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round trip lost data:\n got %s\nwant %s", out, c.raw)
			}
		})
	}
}

func TestGetFinderReqSearchKeywords(t *testing.T) {
	var r GetFinderReq
	if err := json.Unmarshal([]byte(`{"agent":"a","req_id":"r","computer":"c","tags":["x"]}`), &r); err != nil {
		t.Fatal(err)
	}
	if got := r.SearchKeywords(); !slices.Equal(got, []string{"x"}) {
		t.Errorf("tags alias: %v", got)
	}
	r.Keywords = []string{"k"}
	if got := r.SearchKeywords(); !slices.Equal(got, []string{"k"}) {
		t.Errorf("keywords win over tags: %v", got)
	}
	if (GetFinderReq{}).SearchKeywords() != nil {
		t.Error("no keywords should give nil")
	}
}

func TestCatalogEntry(t *testing.T) {
	d := DPEDocument{DocRef: "d", URI: "u", FileURI: "f", FileType: "pdf", Title: "T", PageCount: 3,
		Keywords: []string{"k"}, Summary: "s", LastModified: "lm", Pages: []DPEPageSummary{{}}}
	want := DPEDocumentSummary{DocRef: "d", URI: "u", FileURI: "f", FileType: "pdf", Title: "T", PageCount: 3,
		Keywords: []string{"k"}, Summary: "s", Server: "srv", LastModified: "lm"}
	if got := d.CatalogEntry("srv"); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v", got)
	}
}

func TestEvents(t *testing.T) {
	for ev, want := range map[string]string{
		EventUpdateConfig: NotifyUpdateConfig, EventUpdateToolList: NotifyUpdateToolList,
		EventUpdateDesktop: NotifyUpdateDesktop, EventUpdateFinder: NotifyUpdateFinder,
		EventToolCallCancel: NotifyToolCallCancel,
	} {
		if got, ok := NotificationFor(ev); !ok || got != want {
			t.Errorf("NotificationFor(%s) = %q, %v", ev, got, ok)
		}
	}
	for _, ev := range []string{EventJoinOffice, EventListRoom, EventGetFinder, "notify:update_finder", ""} {
		if _, ok := NotificationFor(ev); ok {
			t.Errorf("NotificationFor(%q) should be false", ev)
		}
	}
	ce := ClientEvents()
	for _, ev := range []string{"client:get_finder", "client:list_finder", "client:read_resource", "client:get_desktop", "client:tool_call"} {
		if !slices.Contains(ce, ev) {
			t.Errorf("ClientEvents lacks %s", ev)
		}
	}
	if !RoleAgent.Valid() || !RoleComputer.Valid() || Role("server").Valid() || Role("").Valid() {
		t.Error("Role.Valid")
	}
}

func TestDPEDocumentPagesWindowAlwaysHasPages(t *testing.T) {
	past := DPEDocument{DocRef: "d", URI: "dpe://h/d", Title: "t", PageCount: 2,
		PageOffset: intp(5), PageLimit: intp(20), PageTotal: intp(2)}
	b, err := json.Marshal(past)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	pages, ok := m["pages"].([]any)
	if !ok || len(pages) != 0 {
		t.Fatalf("offset past the end: pages = %#v, want []; json %s", m["pages"], b)
	}
	if m["page_offset"] != float64(5) || m["page_total"] != float64(2) {
		t.Fatalf("window fields lost: %s", b)
	}

	meta := DPEDocument{DocRef: "d", URI: "dpe://h/d", Title: "t", PageCount: 2}
	b, err = json.Marshal(meta)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"pages"`) || strings.Contains(string(b), "page_offset") {
		t.Fatalf("depth=metadata read must not carry a page window: %s", b)
	}
}

// TestDPEDocumentMarshalKeepsEveryField checks that DPEDocument.MarshalJSON
// round-trips every field, the shadowed pages included.
func TestDPEDocumentMarshalKeepsEveryField(t *testing.T) {
	in := DPEDocument{DocRef: "d", URI: "u", FileURI: "f", FileType: "pdf", Title: "T",
		PageCount: 3, Keywords: []string{"k"}, Summary: "s", LastModified: "lm",
		Pages:      []DPEPageSummary{{PageIndex: 1, Title: "p", ElementCount: 2, URI: "u/pages/1", DocRef: "d", Bookmarks: []DPEBookmark{{Title: "p", Level: 1}}}},
		PageOffset: intp(1), PageLimit: intp(1), PageTotal: intp(3), Unreadable: "u", BookmarkCount: 1, Truncated: "kept 1 of 2 pages"}
	v := reflect.ValueOf(in)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("test value leaves %s zero; set it", v.Type().Field(i).Name)
		}
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out DPEDocument
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip lost fields:\n in %+v\nout %+v\njson %s", in, out, b)
	}
}

func TestCallToolResultErrorCode(t *testing.T) {
	for raw, want := range map[string]int{
		`{"content":[],"isError":true,"meta":{"error_code":4001}}`:   4001,
		`{"content":[],"isError":true,"_meta":{"error_code":4006}}`:  4006,
		`{"content":[],"isError":true,"meta":{"error_code":"4001"}}`: 0,
		`{"content":[],"isError":true,"meta":{"error_code":4.5}}`:    0,
		`{"content":[],"isError":true}`:                              0,
	} {
		var r CallToolResult
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			t.Fatal(err)
		}
		if got := r.ErrorCode(); got != want {
			t.Errorf("%s: ErrorCode = %d, want %d", raw, got, want)
		}
	}
}

// The auth hint's message is read from meta or _meta; a hint of another
// shape is none.
func TestCallToolResultAuthHint(t *testing.T) {
	for raw, want := range map[string]string{
		`{"content":[],"isError":true,"meta":{"error_code":4006,"auth_hint":{"action":"user_authorization_required","message":"authorize it"}}}`: "authorize it",
		`{"content":[],"isError":true,"_meta":{"auth_hint":{"message":"refresh"}}}`:                                                              "refresh",
		`{"content":[],"isError":true,"meta":{"auth_hint":"not an object"}}`:                                                                     "",
		`{"content":[],"isError":true}`: "",
	} {
		var r CallToolResult
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			t.Fatal(err)
		}
		if got := r.AuthHint(); got != want {
			t.Errorf("%s: AuthHint = %q, want %q", raw, got, want)
		}
	}
}

// a2c_tool_meta is read as the JSON string this project's Computer (and
// the SDK's) writes, or as an object; anything else is none.
func TestSMCPToolMeta(t *testing.T) {
	for raw, want := range map[string][]string{
		`{"name":"t","meta":{"a2c_tool_meta":"{\"tags\":[\"fs\",\"read\"],\"alias\":\"ls\"}"}}`: {"fs", "read"},
		`{"name":"t","meta":{"a2c_tool_meta":{"tags":["web"]}}}`:                                {"web"},
		`{"name":"t","meta":{"a2c_tool_meta":"not json"}}`:                                      nil,
		`{"name":"t","meta":{"a2c_tool_meta":3}}`:                                               nil,
		`{"name":"t"}`: nil,
	} {
		var tl SMCPTool
		if err := json.Unmarshal([]byte(raw), &tl); err != nil {
			t.Fatal(err)
		}
		m, ok := tl.ToolMeta()
		if ok != (want != nil) || !slices.Equal(m.Tags, want) {
			t.Errorf("%s: ToolMeta = %+v %v, want tags %v", raw, m, ok, want)
		}
	}
}
