package server

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// The a2c_version range the Server accepts: the range this project speaks
// (protocol.MinVersion to protocol.MaxVersion). The official Python SDK sends
// 0.2.x, 0.3.x or (a2c-smcp 0.4.2, the newest) 0.4.0, and the events this
// Server serves are the same across them, so every version from
// MinSupported up to any patch of MaxSupported's MAJOR.MINOR is accepted.
// MaxSupported's patch only marks "every 0.4.x" in the 4008 body.
const (
	MinSupported = protocol.MinVersion
	MaxSupported = protocol.MaxVersion
)

// versionRange is MinSupported and MaxSupported parsed once.
type versionRange struct {
	min, max protocol.ProtocolVersion
}

func supportedRange() versionRange {
	lo, err := protocol.ParseVersion(MinSupported)
	if err != nil {
		panic("server: bad MinSupported: " + err.Error())
	}
	hi, err := protocol.ParseVersion(MaxSupported)
	if err != nil {
		panic("server: bad MaxSupported: " + err.Error())
	}
	return versionRange{lo, hi}
}

func compareVersions(a, b protocol.ProtocolVersion) int {
	switch {
	case a.Major != b.Major:
		return a.Major - b.Major
	case a.Minor != b.Minor:
		return a.Minor - b.Minor
	}
	return a.Patch - b.Patch
}

// Supported reports whether a client speaking v may connect:
// MinSupported ≤ v and v's MAJOR.MINOR ≤ MaxSupported's.
func Supported(v protocol.ProtocolVersion) bool {
	r := supportedRange()
	if compareVersions(v, r.min) < 0 {
		return false
	}
	return v.Major < r.max.Major || (v.Major == r.max.Major && v.Minor <= r.max.Minor)
}

// writeError writes a protocol error payload as an HTTP 400 response.
func writeError(w http.ResponseWriter, e *protocol.Error) {
	body, err := json.Marshal(e)
	if err != nil {
		body = []byte(`{"code":400,"message":"bad request"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if e.Code != protocol.CodeBadRequest {
		w.Header().Set("X-A2C-Error-Code", strconv.Itoa(e.Code))
	}
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(body)
}

// checkVersion validates the a2c_version of an engine.io request that
// starts a session (no sid: a polling handshake or a direct WebSocket) and
// returns the refusal, or nil. Requests of an existing session pass: the
// engine checks their sid.
func checkVersion(r *http.Request) *protocol.Error {
	q := r.URL.Query()
	if q.Get("sid") != "" {
		return nil
	}
	raw := q.Get("a2c_version")
	if raw == "" {
		return protocol.NewError(protocol.CodeBadRequest, "Missing a2c_version query parameter")
	}
	v, err := protocol.ParseVersion(raw)
	if err != nil {
		return protocol.Errorf(protocol.CodeBadRequest, "Invalid a2c_version: %v", err)
	}
	if !Supported(v) {
		e := protocol.NewError(protocol.CodeVersionMismatch, "Protocol version mismatch")
		e.Extra = map[string]any{
			"server_version": protocol.Version,
			"client_version": raw,
			"min_supported":  MinSupported,
			"max_supported":  MaxSupported,
		}
		return e
	}
	return nil
}
