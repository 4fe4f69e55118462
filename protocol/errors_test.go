package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeError(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want *Error // nil: not an error payload
	}{
		{"flat", `{"code":4204,"message":"Invalid DPE URI"}`, &Error{Code: 4204, Message: "Invalid DPE URI"}},
		{"flat with details", `{"code":4202,"message":"Page out of range","details":{"page_index":99,"page_count":12}}`,
			&Error{Code: 4202, Message: "Page out of range", Details: map[string]any{"page_index": 99.0, "page_count": 12.0}}},
		{"nested", `{"error":{"code":4201,"message":"Document not found","details":{"doc_ref":"x"}}}`,
			&Error{Code: 4201, Message: "Document not found", Details: map[string]any{"doc_ref": "x"}}},
		{"nested beside req_id", `{"error":{"code":404,"message":"Computer 'c' not found"},"req_id":"r"}`,
			&Error{Code: 404, Message: "Computer 'c' not found"}},
		{"4008 with top-level version fields", `{"code":4008,"message":"version mismatch","server_version":"0.3.0","client_version":"0.2.0","min_supported":"0.3.0","max_supported":"0.3.99"}`,
			&Error{Code: 4008, Message: "version mismatch", Extra: map[string]any{"server_version": "0.3.0", "client_version": "0.2.0", "min_supported": "0.3.0", "max_supported": "0.3.99"}}},
		{"4015 code-specific fields", `{"code":4015,"message":"m","mcp_server":"docs","capability":"resources"}`,
			&Error{Code: 4015, Message: "m", Extra: map[string]any{"mcp_server": "docs", "capability": "resources"}}},
		{"details that is not an object is dropped", `{"code":500,"message":"m","details":"oops"}`, &Error{Code: 500, Message: "m"}},
		{"integral float code", `{"code":4.204e3,"message":"m"}`, &Error{Code: 4204, Message: "m"}},

		{"GetFinderRet", `{"documents":[],"total_count":0,"req_id":"r"}`, nil},
		{"ReadResourceRet", `{"contents":[{"uri":"dpe://h","text":"{\"code\":4201,\"message\":\"x\"}"}]}`, nil},
		{"empty array", `[]`, nil},
		{"null", `null`, nil},
		{"empty object", `{}`, nil},
		{"string code", `{"code":"x"}`, nil},
		{"string code with message", `{"code":"4204","message":"m"}`, nil},
		{"code without message", `{"code":404}`, nil},
		{"zero code", `{"code":0,"message":"m"}`, nil},
		{"negative code", `{"code":-1,"message":"m"}`, nil},
		{"fractional code", `{"code":1.5,"message":"m"}`, nil},
		{"message not a string", `{"code":400,"message":{"x":1}}`, nil},
		{"error is a string", `{"error":"boom"}`, nil},
		{"nested non-error", `{"error":{"code":"x"}}`, nil},
		{"a bare number", `4204`, nil},
		{"a string", `"error"`, nil},
		{"true (an old-style ack)", `true`, nil},
		{"invalid JSON", `{"code":4204,`, nil},
		{"empty input", ``, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := DecodeError([]byte(tt.raw))
			if tt.want == nil {
				if ok || got != nil {
					t.Fatalf("DecodeError(%s) = %+v, %v; want not an error", tt.raw, got, ok)
				}
				return
			}
			if !ok {
				t.Fatalf("DecodeError(%s) did not recognise the error", tt.raw)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestErrorMarshalFlat(t *testing.T) {
	e := NewError(CodeVersionMismatch, "incompatible")
	e.Extra = map[string]any{"server_version": "0.2.0", "code": 1, "message": "ignored"}
	raw, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	want := map[string]any{"code": 4008.0, "message": "incompatible", "server_version": "0.2.0"}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got %s; Extra must sit at the top level and never override code or message", raw)
	}

	raw, _ = json.Marshal(Errorf(CodeElementNotFound, "element %q not found", "x").WithDetails(map[string]any{"element_id": "x"}))
	if string(raw) != `{"code":4203,"details":{"element_id":"x"},"message":"element \"x\" not found"}` {
		t.Errorf("got %s", raw)
	}
	raw, _ = json.Marshal(NewError(CodeNotFound, "m").WithDetails(map[string]any{}))
	if strings.Contains(string(raw), "details") {
		t.Errorf("empty details should be left out: %s", raw)
	}
}

func TestErrorText(t *testing.T) {
	if got := NewError(CodeInvalidDPEURI, "rule 2: host must not be empty").Error(); got != "4204 Invalid DPE URI: rule 2: host must not be empty" {
		t.Errorf("Error() = %q", got)
	}
	if got := NewError(CodeRoomFull, "Room Full").Error(); got != "4101: Room Full" {
		t.Errorf("message equal to the name is not repeated: %q", got)
	}
	if got := NewError(4999, "x").Error(); got != "4999: x" {
		t.Errorf("unknown code: %q", got)
	}
}

func TestCodeOf(t *testing.T) {
	e := NewError(CodePageOutOfRange, "p")
	if CodeOf(fmt.Errorf("read page: %w", e)) != CodePageOutOfRange {
		t.Error("CodeOf must see through wrapping")
	}
	if CodeOf(errors.New("x")) != 0 || CodeOf(nil) != 0 {
		t.Error("CodeOf of a non-protocol error must be 0")
	}
}

func TestCodeNames(t *testing.T) {
	codes := []int{CodeBadRequest, CodeUnauthorized, CodeForbidden, CodeNotFound, CodeTimeout, CodeInternalError,
		CodeToolNotFound, CodeToolDisabled, CodeToolExecutionFailed, CodeToolTimeout, CodeToolRequiresConfirmation,
		CodeToolAuthorizationRequired, CodeToolAuthorizationFailed, CodeVersionMismatch, CodeMCPServerNotFound,
		CodeMCPCapabilityNotSupported, CodeSkillNameInvalid, CodeSkillResourceInaccessible, CodeBlobNotAccessible,
		CodeBlobWriteFailed, CodeRoomFull, CodeRoomNotFound, CodeNotInRoom, CodeCrossRoomAccess,
		CodeNameTaken, CodeAgentInOtherRoom, CodeDocumentNotFound, CodePageOutOfRange, CodeElementNotFound, CodeInvalidDPEURI}
	seen := map[string]int{}
	for _, c := range codes {
		n := CodeName(c)
		if n == "" {
			t.Errorf("code %d has no name", c)
		}
		if prev, dup := seen[n]; dup {
			t.Errorf("codes %d and %d share the name %q", prev, c, n)
		}
		seen[n] = c
	}
	// the Finder codes by the SDK guide's table
	for c, want := range map[int]string{4201: "Document Not Found", 4202: "Page Out of Range", 4203: "Element Not Found", 4204: "Invalid DPE URI"} {
		if CodeName(c) != want {
			t.Errorf("CodeName(%d) = %q, want %q", c, CodeName(c), want)
		}
	}
	if CodeName(0) != "" || CodeName(4999) != "" {
		t.Error("unknown codes have no name")
	}
}

// FuzzDecodeError: arbitrary ack payloads never panic; whatever is
// recognised as an error re-encodes to the flat form and decodes to the
// same error.
func FuzzDecodeError(f *testing.F) {
	for _, s := range []string{
		`{"code":4204,"message":"m","details":{"uri":"x"}}`, `{"error":{"code":404,"message":"m"}}`,
		`{"code":4008,"message":"m","server_version":"0.2.0"}`, `{"documents":[],"total_count":0}`,
		`[]`, `null`, `{"code":"x"}`, `{"error":{"error":{"code":1,"message":""}}}`, `{"code":1e400,"message":"m"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		e, ok := DecodeError(raw)
		if !ok {
			if e != nil {
				t.Fatal("not ok but non-nil error")
			}
			return
		}
		if e.Code <= 0 {
			t.Fatalf("recognised an error with code %d", e.Code)
		}
		flat, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("marshal %#v: %v", e, err)
		}
		e2, ok := DecodeError(flat)
		if !ok {
			t.Fatalf("re-encoded error %s is not recognised", flat)
		}
		if len(e.Details) == 0 {
			e.Details = nil
		}
		if !reflect.DeepEqual(e, e2) {
			t.Fatalf("round trip changed the error:\n%#v\n%#v\n(from %s)", e, e2, flat)
		}
	})
}
