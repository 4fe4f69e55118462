package dpe

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

func intp(n int) *int { return &n }

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		raw  string
		want URI
		str  string // canonical String(); "" means raw itself
	}{
		{raw: "dpe://com.example.docs", want: URI{Host: "com.example.docs", level: LevelCatalog}},
		{raw: "dpe://com.example.docs/", want: URI{Host: "com.example.docs", level: LevelCatalog}, str: "dpe://com.example.docs"},
		{raw: "DPE://h/d", want: URI{Host: "h", DocRef: "d", level: LevelDocument}, str: "dpe://h/d"},
		{raw: "dpe://com.example.docs/rpt-2026", want: URI{Host: "com.example.docs", DocRef: "rpt-2026", level: LevelDocument}},
		{raw: "dpe://h/rpt-2026/", want: URI{Host: "h", DocRef: "rpt-2026", level: LevelDocument}, str: "dpe://h/rpt-2026"},
		{raw: "dpe://h/rpt-2026/pages/0", want: URI{Host: "h", DocRef: "rpt-2026", Page: 0, level: LevelPage}},
		{raw: "dpe://h/rpt-2026/pages/11", want: URI{Host: "h", DocRef: "rpt-2026", Page: 11, level: LevelPage}},
		{raw: "dpe://h/rpt-2026/elements/tbl-001", want: URI{Host: "h", DocRef: "rpt-2026", ElementID: "tbl-001", level: LevelElement}},
		// special characters: percent-encoded slash, space, unicode
		{raw: "dpe://h/a%2Fb%20c/elements/x%2Fy", want: URI{Host: "h", DocRef: "a/b c", ElementID: "x/y", level: LevelElement}},
		{raw: "dpe://h/%E5%B9%B4%E6%8A%A5", want: URI{Host: "h", DocRef: "年报", level: LevelDocument}},
		{raw: "dpe://h/年报/elements/表1", want: URI{Host: "h", DocRef: "年报", ElementID: "表1", level: LevelElement},
			str: "dpe://h/%E5%B9%B4%E6%8A%A5/elements/%E8%A1%A81"},
		{raw: "dpe://h:8080/d", want: URI{Host: "h:8080", DocRef: "d", level: LevelDocument}},
		// query parameters (rules 4-8), alone and combined
		{raw: "dpe://h/d?format=json", want: URI{Host: "h", DocRef: "d", level: LevelDocument, Query: Query{Format: "json"}}},
		{raw: "dpe://h/d?format=markdown", want: URI{Host: "h", DocRef: "d", level: LevelDocument, Query: Query{Format: "markdown"}}},
		{raw: "dpe://h/d?format=text", want: URI{Host: "h", DocRef: "d", level: LevelDocument, Query: Query{Format: "text"}}},
		{raw: "dpe://h/d?depth=metadata", want: URI{Host: "h", DocRef: "d", level: LevelDocument, Query: Query{Depth: "metadata"}}},
		{raw: "dpe://h/rpt-2026?depth=pages&offset=0&limit=10",
			want: URI{Host: "h", DocRef: "rpt-2026", level: LevelDocument, Query: Query{Depth: "pages", Offset: intp(0), Limit: intp(10)}}},
		{raw: "dpe://h/d?limit=1", want: URI{Host: "h", DocRef: "d", level: LevelDocument, Query: Query{Limit: intp(1)}}},
		{raw: "dpe://h/d?limit=100", want: URI{Host: "h", DocRef: "d", level: LevelDocument, Query: Query{Limit: intp(100)}}},
		{raw: "dpe://h/d?offset=999", want: URI{Host: "h", DocRef: "d", level: LevelDocument, Query: Query{Offset: intp(999)}}},
		{raw: "dpe://h/rpt-2026/pages/0?categories=table,pivot_table&format=markdown",
			want: URI{Host: "h", DocRef: "rpt-2026", level: LevelPage, Query: Query{Format: "markdown", Categories: []Category{Table, PivotTable}}},
			str:  "dpe://h/rpt-2026/pages/0?format=markdown&categories=table,pivot_table"},
		{raw: "dpe://h/d/pages/2?categories=widget", want: URI{Host: "h", DocRef: "d", Page: 2, level: LevelPage, Query: Query{Categories: []Category{Widget}}}},
		{raw: "dpe://h/d/elements/tbl-001?format=json", want: URI{Host: "h", DocRef: "d", ElementID: "tbl-001", level: LevelElement, Query: Query{Format: "json"}}},
		// unknown parameters are ignored, the first occurrence wins, fragments dropped
		{raw: "dpe://h/d?x=1&format=text&format=bogus#frag", want: URI{Host: "h", DocRef: "d", level: LevelDocument, Query: Query{Format: "text"}},
			str: "dpe://h/d?format=text"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got, err := Parse(tt.raw)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Parse = %#v\nwant    %#v", got, tt.want)
			}
			if got.Level() != tt.want.level {
				t.Errorf("Level = %d, want %d", got.Level(), tt.want.level)
			}
			want := tt.str
			if want == "" {
				want = tt.raw
			}
			if s := got.String(); s != want {
				t.Errorf("String = %q, want %q", s, want)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		raw  string
		rule Rule
	}{
		{"", RuleScheme},
		{"dpe:", RuleScheme},
		{"dpe:/h/d", RuleScheme},
		{"http://h/d", RuleScheme},
		{"window://h/d", RuleScheme},
		{"dpe://", RuleHost},
		{"dpe:///d", RuleHost},
		{"dpe://?format=json", RuleHost},
		{"dpe://h h/d", RuleHost},
		{"dpe://h/d/pages", RuleSubPath},
		{"dpe://h/d/pages/", RuleSubPath},
		{"dpe://h/d/pages/-1", RuleSubPath},
		{"dpe://h/d/pages/1.5", RuleSubPath},
		{"dpe://h/d/pages/x", RuleSubPath},
		{"dpe://h/d/pages/1/2", RuleSubPath},
		{"dpe://h/d/elements/", RuleSubPath},
		{"dpe://h/d/elements/a/b", RuleSubPath},
		{"dpe://h/d/sections/1", RuleSubPath},
		{"dpe://h//pages/1", RuleSubPath},
		{"dpe://h/%zz", RuleSubPath},
		{"dpe://h/..", RuleSubPath},
		{"dpe://h/%2e%2E", RuleSubPath},
		{"dpe://h/./pages/1", RuleSubPath},
		{"dpe://h/d/elements/..", RuleSubPath},
		{"dpe://h/nul\x00byte", RuleSubPath},
		{"dpe://h/esc%1B%5B2J", RuleSubPath},
		{"dpe://h/csi%C2%9B31m", RuleSubPath},
		{"dpe://h/bad%ffutf8", RuleSubPath},
		{"dpe://h/d/elements/del%7F", RuleSubPath},
		{"dpe://h/d?format=html", RuleFormat},
		{"dpe://h/d?format=", RuleFormat},
		{"dpe://h/d?format=%zz", RuleFormat},
		{"dpe://h/d?depth=all", RuleDepth},
		{"dpe://h/d?offset=-1", RuleOffset},
		{"dpe://h/d?offset=abc", RuleOffset},
		{"dpe://h/d?offset=", RuleOffset},
		{"dpe://h/d?limit=0", RuleLimit},
		{"dpe://h/d?limit=101", RuleLimit},
		{"dpe://h/d?limit=1.5", RuleLimit},
		{"dpe://h/d?categories=tables", RuleCategories},
		{"dpe://h/d?categories=table,", RuleCategories},
		{"dpe://h/d?categories=", RuleCategories},
		{"dpe://h/d?categories=TABLE", RuleCategories},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			_, err := Parse(tt.raw)
			if err == nil {
				t.Fatal("Parse accepted an invalid URI")
			}
			if code := protocol.CodeOf(err); code != protocol.CodeInvalidDPEURI {
				t.Errorf("code = %d, want 4204", code)
			}
			if r := RuleOf(err); r != tt.rule {
				t.Errorf("rule = %d, want %d (%v)", r, tt.rule, err)
			}
			if pe := err.(*protocol.Error); pe.Details["uri"] != tt.raw {
				t.Errorf("details.uri = %v, want %q", pe.Details["uri"], tt.raw)
			}
		})
	}
}

func TestRuleOfWrapped(t *testing.T) {
	_, err := Parse("dpe://h/d?limit=500")
	wrapped := fmt.Errorf("read resource: %w", err)
	if r := RuleOf(wrapped); r != RuleLimit {
		t.Errorf("RuleOf(wrapped) = %d, want %d", r, RuleLimit)
	}
	if r := RuleOf(errors.New("other")); r != 0 {
		t.Errorf("RuleOf(unrelated) = %d, want 0", r)
	}
	if r := RuleOf(protocol.NewError(protocol.CodeDocumentNotFound, "x")); r != 0 {
		t.Errorf("RuleOf(4201) = %d, want 0", r)
	}
}

func TestConstructorsRoundTrip(t *testing.T) {
	for _, u := range []URI{
		Catalog("com.example.docs"),
		Document("h", "a b/c?d#e%f"),
		Page("h", "doc", 7).WithQuery(Query{Categories: []Category{Table, Chart}, Format: FormatMarkdown}),
		Element("h", "doc", "x/y z"),
		Document("h", "doc").WithQuery(Query{Depth: DepthPages, Offset: intp(40), Limit: intp(20)}),
	} {
		got, err := Parse(u.String())
		if err != nil {
			t.Fatalf("Parse(%q): %v", u, err)
		}
		if !reflect.DeepEqual(got, u) {
			t.Errorf("round trip of %q = %#v, want %#v", u, got, u)
		}
	}
	if d := Element("h", "doc", "e1").DocumentURI(); d.String() != "dpe://h/doc" {
		t.Errorf("DocumentURI = %q", d)
	}
}

func TestCategories(t *testing.T) {
	cs := Categories()
	if len(cs) != 19 {
		t.Fatalf("%d categories, want 19", len(cs))
	}
	seen := map[Category]bool{}
	for _, c := range cs {
		if !c.Valid() || seen[c] {
			t.Errorf("category %q invalid or repeated", c)
		}
		seen[c] = true
	}
	if Category("paragraph").Valid() {
		t.Error("paragraph must not be a category")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"dpe://h", "dpe://h/d", "dpe://h/d/pages/3?format=markdown&categories=table,chart",
		"dpe://h/a%2Fb/elements/x%20y?limit=5&offset=2&depth=pages", "dpe://", "http://x", "",
		"dpe://h/d?categories=table,", "dpe://h/%", "dpe://h/d/elements/%E8%A1%A8",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := Parse(raw)
		if err != nil {
			if protocol.CodeOf(err) != protocol.CodeInvalidDPEURI || RuleOf(err) == 0 {
				t.Fatalf("error without code 4204 and rule: %v", err)
			}
			return
		}
		s := u.String()
		u2, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q) ok but Parse(String()=%q) failed: %v", raw, s, err)
		}
		if !reflect.DeepEqual(u, u2) {
			t.Fatalf("round trip changed the URI:\n%#v\n%#v", u, u2)
		}
		if s2 := u2.String(); s2 != s {
			t.Fatalf("String not a fixed point: %q then %q", s, s2)
		}
	})
}

var benchURIs = []string{
	"dpe://com.example.docs",
	"dpe://com.example.docs/rpt-2026",
	"dpe://com.example.docs/rpt-2026?depth=pages&offset=0&limit=10",
	"dpe://com.example.docs/rpt-2026/pages/3?categories=table,pivot_table&format=markdown",
	"dpe://com.example.docs/rpt-2026/elements/tbl-001?format=json",
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := Parse(benchURIs[i%len(benchURIs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkString(b *testing.B) {
	u, _ := Parse(benchURIs[3])
	b.ReportAllocs()
	for b.Loop() {
		_ = u.String()
	}
}
