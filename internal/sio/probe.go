package sio

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// probeTimeout bounds the plain-HTTP handshake probe.
const probeTimeout = 5 * time.Second

// probe makes the engine.io polling handshake over plain HTTP. The
// Socket.IO client reports a refused handshake only as a transport error,
// without the server's JSON body, and loses errors that come back faster
// than it subscribes to them; the probe learns both reliably. It returns
// the server's protocol error (400, 4008, ...) when it refuses the
// handshake, a plain error when the server cannot be reached, and nil when
// the handshake succeeds. The session the probe opens is closed at once.
func (c *Conn) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	q := url.Values{"EIO": {"4"}, "transport": {"polling"}, "a2c_version": {c.Version()}}
	endpoint := c.base + c.opts.Path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"?"+q.Encode(), nil)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", c.base, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", c.base, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode == http.StatusOK {
		c.closeProbeSession(ctx, endpoint, q, body)
		return nil
	}
	pe, ok := protocol.DecodeError(body)
	if !ok || pe.Code < 400 {
		if resp.StatusCode == http.StatusNotFound {
			return fmt.Errorf("connect to %s: no Socket.IO endpoint at %s (HTTP 404 Not Found); %s",
				c.base, c.opts.Path, pathAdvice(c.opts.Path))
		}
		// engine.io's own refusals use codes 0-5 in the same shape; they are
		// transport matters, not protocol errors.
		return fmt.Errorf("connect to %s: handshake at %s answered HTTP %d: %.200s", c.base, c.opts.Path, resp.StatusCode, body)
	}
	if pe.Code == protocol.CodeVersionMismatch {
		return c.versionMismatch(pe)
	}
	return pe
}

// pathAdvice suggests the other engine.io path when the one tried is not
// there: a Server built on the official a2c-smcp SDK serves /smcp/, most
// others /socket.io/.
func pathAdvice(tried string) string {
	if strings.TrimSuffix(tried, "/") == "/smcp" {
		return "is the Server's Socket.IO path the default one? try --socket-path /socket.io/"
	}
	return "a Server built on the official a2c-smcp SDK serves Socket.IO at /smcp: try --socket-path /smcp"
}

// closeProbeSession sends the engine.io close packet for the session the
// probe opened, so the server does not keep it until the ping timeout.
func (c *Conn) closeProbeSession(ctx context.Context, endpoint string, q url.Values, body []byte) {
	// The open packet is "0" followed by JSON holding the sid.
	s := strings.TrimPrefix(string(body), "0")
	var open struct {
		SID string `json:"sid"`
	}
	if json.Unmarshal([]byte(s), &open) != nil || open.SID == "" {
		return
	}
	q.Set("sid", open.SID)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint+"?"+q.Encode(), strings.NewReader("1"))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		_ = resp.Body.Close()
	}
}
