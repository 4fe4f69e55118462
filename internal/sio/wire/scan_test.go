package wire

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzSplitArray checks the scanner against encoding/json: for any valid
// JSON array, splitValidArray yields the elements json.Unmarshal finds, and for
// any valid object DecodeFields reads the member a map decode keeps.
func FuzzSplitArray(f *testing.F) {
	for _, s := range []string{
		`[]`, `[1]`, ` [ "a\"]" , {"b":[1,{"c":"]"}]} , null,true ] `, `["x",{"computer":"pc","req_id":"1"}]`,
		`{"computer":"pc"}`, `{"a":{"computer":"no"},"computer":"yes"}`, `{"comp\u0075ter":"esc"}`, `{ }`, `"s"`, ` null `,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw := []byte(s)
		if !json.Valid(raw) {
			return
		}
		var want []json.RawMessage
		// encoding/json also takes null as an empty slice; it is no array.
		if json.Unmarshal(raw, &want) == nil && strings.HasPrefix(strings.TrimSpace(s), "[") {
			got, ok := splitValidArray(raw)
			if !ok || len(got) != len(want) {
				t.Fatalf("%s: split %q (%v), want %q", s, got, ok, want)
			}
			for i := range got {
				if !bytes.Equal(bytes.TrimSpace(got[i]), bytes.TrimSpace(want[i])) {
					t.Fatalf("%s: element %d %q, want %q", s, i, got[i], want[i])
				}
			}
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) == nil && strings.HasPrefix(strings.TrimSpace(s), "{") {
			// Keys match exactly (encoding/json would also take
			// "Computer"); the last of duplicates wins, as in a map.
			want := struct{ C json.RawMessage }{obj["computer"]}
			var got json.RawMessage
			if err := DecodeFields(raw, []Field{{Name: "computer", Dst: &got}}); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
			if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want.C)) {
				t.Fatalf("%s: computer %q, want %q", s, got, want.C)
			}
			var wantStr, gotStr string
			if json.Unmarshal(want.C, &wantStr) == nil {
				if err := DecodeFields(raw, []Field{{Name: "computer", Dst: &gotStr}}); err != nil || gotStr != wantStr {
					t.Fatalf("%s: computer as a string %q (%v), want %q", s, gotStr, err, wantStr)
				}
			}
		}
	})
}

func TestDecodeFieldsTypeError(t *testing.T) {
	var name string
	err := DecodeFields([]byte(`{"x":[1,2],"computer":5}`), []Field{{Name: "computer", Dst: &name}})
	if err == nil || !strings.Contains(err.Error(), `field "computer" must be string, got number`) {
		t.Fatalf("error %v", err)
	}
}

// TestSetField: the stamped member is the only one of its name left, in
// whatever case or escape the others were written, so both a strict and a
// loose (encoding/json) reader see the stamped value.
func TestSetField(t *testing.T) {
	raw := []byte(`{"agent":"bob","req_id":"1","Agent":"eve","\u0061gent":"mallory","params":{"agent":"kept"}}`)
	got, err := SetField(raw, "agent", "alice")
	if err != nil {
		t.Fatal(err)
	}
	var loose struct {
		Agent  string         `json:"agent"`
		ReqID  string         `json:"req_id"`
		Params map[string]any `json:"params"`
	}
	if err := json.Unmarshal(got, &loose); err != nil || loose.Agent != "alice" || loose.ReqID != "1" || loose.Params["agent"] != "kept" {
		t.Fatalf("%s -> %+v %v", got, loose, err)
	}
	var m map[string]any
	_ = json.Unmarshal(got, &m)
	if len(m) != 3 {
		t.Errorf("members %v, want agent, req_id and params only", m)
	}
}

// FuzzKeyMatches: the allocation-free key match says what decoding the key
// and comparing it (encoding/json's case folding, and exactly) says.
func FuzzKeyMatches(f *testing.F) {
	for _, seed := range [][2]string{
		{`"computer"`, "computer"}, {`"Computer"`, "computer"}, {`"COMPUTER"`, "computer"}, {`"computr"`, "computer"},
		{`"age\u006et"`, "agent"}, {`"\u212aey"`, "key"}, {`"ﬀ"`, "ff"}, {`"req_id"`, "req_ID"}, {`"@gent"`, "`gent"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, key, name string) {
		if !json.Valid([]byte(key)) || len(key) < 2 || key[0] != '"' {
			return
		}
		n := keyName([]byte(key))
		fold, exact := keyMatches([]byte(key), name)
		if fold != strings.EqualFold(n, name) || exact != (n == name) {
			t.Fatalf("keyMatches(%s, %q) = %v, %v; decoded %q: %v, %v", key, name, fold, exact, n, strings.EqualFold(n, name), n == name)
		}
		if KeyIs([]byte(key), name) != (n == name) {
			t.Fatalf("KeyIs(%s, %q) wrong", key, name)
		}
	})
}
