package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
)

// AuthError is a request an HTTP MCP server refused for authorization: 401
// (credentials missing or invalid) or 403 (not allowed).
type AuthError struct {
	Server string // bundle_id
	Status int    // http.StatusUnauthorized or http.StatusForbidden
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("%s: the server refused the request with HTTP %d %s", e.Server, e.Status, http.StatusText(e.Status))
}

type authKey struct{}

// authSeen records the first 401/403 an HTTP request of one call met.
type authSeen struct {
	mu     sync.Mutex
	status int
}

// captureAuth returns a context whose HTTP requests record a 401 or 403
// answer (boundedTransport does), and the function that reports it.
func captureAuth(ctx context.Context) (context.Context, func() int) {
	s := &authSeen{}
	return context.WithValue(ctx, authKey{}, s), func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.status
	}
}

// noteAuth records resp's status for the call of req when it is 401/403.
func noteAuth(req *http.Request, resp *http.Response) {
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return
	}
	s, ok := req.Context().Value(authKey{}).(*authSeen)
	if !ok {
		return
	}
	s.mu.Lock()
	if s.status == 0 {
		s.status = resp.StatusCode
	}
	s.mu.Unlock()
}

// authFailure returns the AuthError behind err, a failed call of server
// whose HTTP requests met status (0 for none), or nil.
func authFailure(server string, err error, status int) *AuthError {
	if status != 0 {
		return &AuthError{Server: server, Status: status}
	}
	var are *transport.AuthorizationRequiredError
	if errors.As(err, &are) || errors.Is(err, transport.ErrAuthorizationRequired) || errors.Is(err, transport.ErrOAuthAuthorizationRequired) {
		return &AuthError{Server: server, Status: http.StatusUnauthorized}
	}
	return nil
}
