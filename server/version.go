package server

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// A Server speaks one protocol version (Options.Version, default
// protocol.Version) and, as versioning.md asks, admits only clients whose
// version is compatible with it: in 0.x the same MAJOR.MINOR (any patch),
// from 1.0 the same MAJOR and a MINOR no newer than the Server's. A client
// refused with 4008 is told the Server's real version and the range it
// admits (code, message, server_version, client_version, min_supported,
// max_supported: versioning.md's body).

// writeError writes a protocol error payload as an HTTP 400 response.
func writeError(w http.ResponseWriter, e *protocol.Error) {
	writeErrorStatus(w, http.StatusBadRequest, e)
}

// writeErrorStatus writes a protocol error payload with HTTP status.
func writeErrorStatus(w http.ResponseWriter, status int, e *protocol.Error) {
	body, err := json.Marshal(e)
	if err != nil {
		body = []byte(`{"code":400,"message":"bad request"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if e.Code != protocol.CodeBadRequest {
		w.Header().Set("X-A2C-Error-Code", strconv.Itoa(e.Code))
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// checkVersion validates the a2c_version of an engine.io request that
// starts a session (no sid: a polling handshake or a direct WebSocket)
// against the Server's version, and returns the refusal, or nil. Requests
// of an existing session pass: the engine checks their sid.
func checkVersion(r *http.Request, server protocol.ProtocolVersion) *protocol.Error {
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
		return protocol.Errorf(protocol.CodeBadRequest, "Invalid a2c_version: %v", clip(err.Error()))
	}
	if !v.CompatibleWith(server) {
		e := protocol.Errorf(protocol.CodeVersionMismatch,
			"Protocol version mismatch: the client speaks %s, this Server speaks %s", clip(raw), server)
		lo, hi := server.SupportedRange()
		e.Extra = map[string]any{
			"server_version": server.String(),
			"client_version": clip(raw),
			"min_supported":  lo.String(),
			"max_supported":  hi.String(),
		}
		return e
	}
	return nil
}
