package wire

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// validSeeds are inputs at the edges of the JSON grammar.
var validSeeds = []string{
	``, ` `, `[]`, ` [ ] `, `[1]`, `[1,]`, `[,1]`, `[1 2]`, `{}`, `{ }`, `{"a":1}`, `{"a" : [1, {"b":null}] }`,
	`{"a":1,}`, `{"a"}`, `{"a":}`, `{1:2}`, `"s"`, `"\u00e9\n\"\\\/\b\f\r\t"`, `"\u00g0"`, `"\x"`, "\"a\x01\"",
	"\"\xff\xfe\"", `"unterminated`, `true`, `truex`, `tru`, `false`, `null`, `nul`, `0`, `-0`, `01`, `-`, `1.`,
	`1.5`, `.5`, `1e5`, `1E+5`, `1e-`, `1e`, `-1.5e-10`, `[1]x`, `[1] `, `[[[]]]`, `[[[]]`, `[1}`, `{"a":1]`,
	`["ev",{"computer":"pc","req_id":"1","nested":{"x":[true,false,null,"]"]}}]`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat("[", 10000) + "[]" + strings.Repeat("]", 10000),
	strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
}

// validJSON reports whether b is one valid JSON value, with optional
// whitespace around it: the scanner on any value, to compare with
// json.Valid (the Server itself only validates event arrays).
func validJSON(b []byte) bool {
	end, ok := scanValue(b, skipSpace(b, 0), 0)
	return ok && skipSpace(b, end) == len(b)
}

// FuzzValidJSON checks the one-pass scanner against encoding/json: it
// accepts what json.Valid accepts, and splits a valid array as
// json.Unmarshal does.
func FuzzValidJSON(f *testing.F) {
	for _, s := range validSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkValid(t, s) })
}

func TestValidJSONSeeds(t *testing.T) {
	for _, s := range validSeeds {
		checkValid(t, s)
	}
}

func checkValid(t *testing.T, s string) {
	t.Helper()
	raw := []byte(s)
	want := json.Valid(raw)
	if got := validJSON(raw); got != want {
		t.Fatalf("validJSON(%.80q) = %v, json.Valid says %v", s, got, want)
	}
	elems, ok := splitValidArray(raw)
	isArray := want && bytes.HasPrefix(bytes.TrimLeft(raw, " \t\r\n"), []byte("["))
	if ok != isArray {
		t.Fatalf("splitValidArray(%.80q) ok = %v, want %v", s, ok, isArray)
	}
	if !ok {
		return
	}
	var split []json.RawMessage
	if err := json.Unmarshal(raw, &split); err != nil || len(split) != len(elems) {
		t.Fatalf("splitValidArray(%.80q) = %q, json.Unmarshal %q (%v)", s, elems, split, err)
	}
	for i := range split {
		if !bytes.Equal(bytes.TrimSpace(split[i]), elems[i]) {
			t.Fatalf("splitValidArray(%.80q)[%d] = %q, json.Unmarshal %q", s, i, elems[i], split[i])
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	msg := []byte(`[{"documents":[` + strings.Repeat(`{"doc_ref":"doc-1","uri":"dpe://docs/doc-1","file_type":"pdf","title":"Quarterly report 1","page_count":12,"server":"docs","keywords":["q3","revenue"],"last_modified":"2026-11-01T10:00:00Z"},`, 4) +
		`{"doc_ref":"doc-5"}],"total_count":5,"req_id":"r1"}]`)
	b.Run("json.Valid", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		for b.Loop() {
			if !json.Valid(msg) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("splitValidArray", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		for b.Loop() {
			if _, ok := splitValidArray(msg); !ok {
				b.Fatal("invalid")
			}
		}
	})
}
