package protocol

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The 4014 details the Computer builds are what an agent reads after the
// wire, in both forms.
func TestUnavailableServersRoundTrip(t *testing.T) {
	one := UnavailableServer{Name: "docs", State: ServerDown, LastError: "exit status 1"}
	several := []UnavailableServer{one, {Name: "notes", State: ServerListing}, {Name: "web", State: ServerUnknown}}
	for _, tc := range []struct {
		err  *Error
		want []UnavailableServer
	}{
		{ServerNotAvailable(one, "m"), []UnavailableServer{one}},
		{ServerNotAvailable(UnavailableServer{Name: "docs", State: ServerStarting}, "m"), []UnavailableServer{{Name: "docs", State: ServerStarting}}},
		{ServersNotAvailable(several, "m"), several},
	} {
		raw, err := json.Marshal(tc.err)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := DecodeError(raw)
		if !ok || got.Code != CodeMCPServerNotFound || got.Extra["mcp_server"] != tc.want[0].Name {
			t.Fatalf("%s decodes to %+v", raw, got)
		}
		if servers := UnavailableServers(got); !reflect.DeepEqual(servers, tc.want) {
			t.Errorf("%s: read %+v, want %+v", raw, servers, tc.want)
		}
		if servers := UnavailableServers(tc.err); !reflect.DeepEqual(servers, tc.want) {
			t.Errorf("before the wire: read %+v, want %+v", servers, tc.want)
		}
	}
	for _, e := range []*Error{nil, NewError(CodeNotFound, "m"), NewError(CodeMCPServerNotFound, "no names")} {
		if got := UnavailableServers(e); got != nil {
			t.Errorf("UnavailableServers(%v) = %+v", e, got)
		}
	}
	// The wire form, as the Computer has always sent it.
	raw, _ := json.Marshal(ServerNotAvailable(one, "m"))
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	want := map[string]any{"code": 4014.0, "message": "m", "mcp_server": "docs", "details": map[string]any{"state": "down", "last_error": "exit status 1"}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("wire form %s", raw)
	}
}
