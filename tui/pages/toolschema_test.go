package pages

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// The skeleton holds the required properties, in the order required,
// each with its default, const or first enum value, else a placeholder of
// its type; nested required objects are filled in, a recursive schema
// stops; a schema that cannot be read gives {}.
func TestArgsSkeleton(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"type":"object"}`, `{}`},
		{`not json`, `{}`},
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, `{}`},
		{`{"type":"object","properties":{"s":{"type":"string"},"n":{"type":"number"},"i":{"type":"integer"},"b":{"type":"boolean"},` +
			`"a":{"type":"array"},"o":{"type":"object"},"x":{}},"required":["x","s","n","i","b","a","o"]}`,
			`{"x":null,"s":"","n":0,"i":0,"b":false,"a":[],"o":{}}`},
		{`{"properties":{"d":{"type":"integer","default":7},"c":{"const":"fixed"},"e":{"enum":["asc","desc"]},` +
			`"t":{"type":["null","string"]},"u":{"anyOf":[{"type":"null"},{"type":"boolean"}]}},"required":["d","c","e","t","u"]}`,
			`{"d":7,"c":"fixed","e":"asc","t":"","u":false}`},
		{`{"type":"object","properties":{"q":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]}},"required":["q","missing"]}`,
			`{"q":{"k":""},"missing":null}`},
		{`{"type":"object","properties":{"r":{"type":"object","properties":{"r":{"type":"object","properties":{"r":{"type":"object",` +
			`"properties":{"r":{"type":"object","properties":{"r":{"type":"object","required":["r"]}},"required":["r"]}},"required":["r"]}},"required":["r"]}},"required":["r"]}},"required":["r"]}`,
			`{"r":{"r":{"r":{"r":{}}}}}`},
	} {
		got := argsSkeleton(json.RawMessage(tc.schema))
		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(got)); err != nil || compact.String() != tc.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tc.schema, got, err, tc.want)
		}
	}
	if got := argsSkeleton(json.RawMessage(`{"type":"object","properties":{"p":{"type":"string"}},"required":["p"]}`)); got != "{\n  \"p\": \"\"\n}" {
		t.Errorf("not indented: %q", got)
	}
}

// The arguments must be one JSON object (blank is {}); the error says
// where JSON breaks.
func TestParseArgs(t *testing.T) {
	for text, want := range map[string]string{
		"":                              "",
		"  \n":                          "",
		`{"a": 1}`:                      "",
		`[1]`:                           "must be a JSON object",
		`null`:                          "must be a JSON object",
		`{"a": 1} {}`:                   "more than one JSON value",
		"{\n  \"a\": x\n}":              "not valid JSON at line 2, column 8: invalid character 'x'",
		`{"a": `:                        "ends too soon",
		`{"big": 12345678901234567890}`: "",
	} {
		m, err := parseArgs(text)
		switch {
		case want == "" && (err != nil || m == nil):
			t.Errorf("%q: %v", text, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
	m, _ := parseArgs(`{"big": 12345678901234567890}`)
	if b, _ := json.Marshal(m); string(b) != `{"big":12345678901234567890}` {
		t.Errorf("a large integer is sent as %s", b)
	}
}

// A saved item is named by its resource's extension, else its type's (the
// usual one where the system lists several), else .bin or .txt; inline
// data that is not base64 is said so, and a2c_total_size sizes an item by
// handle.
func TestResultItems(t *testing.T) {
	res := &protocol.CallToolResult{Content: []protocol.ToolContent{
		{Type: "text", Text: "a\x1b[2Jb"},
		{Type: "image", MIMEType: "image/jpeg", Data: "/9j/"},
		{Type: "audio", MIMEType: "audio/x-unknown", Data: "not base64!"},
		{Type: "image", MIMEType: "image/png", Meta: map[string]any{protocol.MetaBlobHandle: "h", protocol.MetaTotalSize: float64(40000)}},
		{Type: "resource", Resource: json.RawMessage(`{"uri":"file:///r/notes.md","mimeType":"text/markdown","text":"# hi"}`)},
		{Type: "resource", Resource: json.RawMessage(`{"uri":"mem://x","mimeType":"application/octet-stream","blob":"AAE="}`)},
	}, StructuredContent: json.RawMessage(`{"ok":true}`)}
	items := resultItems(res)
	want := []struct{ ext, desc string }{
		{".txt", "text"},
		{".jpg", "image · image/jpeg · 3 B"},
		{".bin", "audio · audio/x-unknown"},
		{".png", "image · image/png · 39.1 KiB · by blob handle"},
		{".md", "resource · file:///r/notes.md · text/markdown"},
		{".bin", "resource · mem://x · application/octet-stream · 2 B"},
		{".json", "structured content"},
	}
	if len(items) != len(want) {
		t.Fatalf("%d items, want %d", len(items), len(want))
	}
	for i, w := range want {
		if got := items[i].ext(); got != w.ext {
			t.Errorf("item %d: ext %q, want %q", i, got, w.ext)
		}
		if got := items[i].describe(); got != w.desc {
			t.Errorf("item %d: %q, want %q", i, got, w.desc)
		}
	}
	if strings.Contains(items[0].text, "\x1b") || items[2].bad == "" || items[4].text != "# hi" || items[5].binary() != true {
		t.Errorf("items: %+v", items)
	}
}
