// Package mcpsubs tracks, per MCP session, the dpe:// resources it
// subscribed to, for the MCP servers of this project (the document server
// and the MCP façade) built on mcp-go.
//
// mcp-go v1.2.1 accepts resources/subscribe (and the subscriptions/listen
// stream of protocol 2026-07-28) but its stdio and in-process sessions do
// not record subscriptions, and it has no fan-out for
// notifications/resources/updated. A Set records them from hooks (Install)
// and says who should hear of a change (Recipients):
//
//   - a session that subscribed (resources/subscribe, or resource URIs in
//     subscriptions/listen) to a document's Level 1 URI, or to any URI of
//     that document (a page, an element, with a query), hears of it;
//   - a session that never subscribed to anything and has no listen stream
//     hears of every changed document: legacy clients learn of content
//     changes without having to subscribe to every document first. MCP
//     lets a server send updated only for subscribed resources, so a
//     client that wants that strictness subscribes to something and from
//     then on receives only what it subscribed to;
//   - list_changed goes to every session (SendNotificationToAllClients),
//     except listen streams that did not ask for it (mcp-go filters those).
package mcpsubs

import (
	"context"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// Set is the subscriptions of every session of one MCP server. It is safe
// for concurrent use.
type Set struct {
	mu       sync.Mutex
	sessions map[string]*session
}

type session struct {
	uris       map[string]int // subscribed URI → number of subscriptions
	subscribed bool           // ever subscribed (or listened)
}

// New returns an empty Set.
func New() *Set { return &Set{sessions: map[string]*session{}} }

// Install adds the hooks that keep s up to date to hooks.
func (s *Set) Install(hooks *server.Hooks) {
	hooks.AddOnRegisterSession(s.register)
	hooks.AddOnUnregisterSession(s.unregister)
	hooks.AddAfterSubscribe(s.afterSubscribe)
	hooks.AddAfterUnsubscribe(s.afterUnsubscribe)
	hooks.AddBeforeSubscriptionsListen(s.beforeListen)
	hooks.AddAfterSubscriptionsListen(s.afterListen)
}

// SessionID is the id of the MCP session of ctx ("" outside one).
func SessionID(ctx context.Context) string {
	if cs := server.ClientSessionFromContext(ctx); cs != nil {
		return cs.SessionID()
	}
	return ""
}

func (s *Set) session(id string) *session {
	ss, ok := s.sessions[id]
	if !ok {
		ss = &session{uris: map[string]int{}}
		s.sessions[id] = ss
	}
	return ss
}

func (s *Set) register(_ context.Context, cs server.ClientSession) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.session(cs.SessionID())
}

func (s *Set) unregister(_ context.Context, cs server.ClientSession) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, cs.SessionID())
}

// Add records that session id subscribed to uris.
func (s *Set) Add(id string, uris ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.session(id)
	ss.subscribed = true
	for _, u := range uris {
		ss.uris[u]++
	}
}

// Remove records that session id unsubscribed from uris.
func (s *Set) Remove(id string, uris ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.sessions[id]
	if !ok {
		return
	}
	for _, u := range uris {
		if ss.uris[u] <= 1 {
			delete(ss.uris, u)
		} else {
			ss.uris[u]--
		}
	}
}

func (s *Set) afterSubscribe(ctx context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
	s.Add(SessionID(ctx), req.Params.URI)
}

func (s *Set) afterUnsubscribe(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
	s.Remove(SessionID(ctx), req.Params.URI)
}

// beforeListen records the resources a subscriptions/listen stream asks
// for; the stream blocks until the client ends it, when afterListen runs.
func (s *Set) beforeListen(ctx context.Context, _ any, req *mcp.SubscriptionsListenRequest) {
	s.Add(SessionID(ctx), req.Params.Notifications.ResourceSubscriptions...)
}

func (s *Set) afterListen(ctx context.Context, _ any, req *mcp.SubscriptionsListenRequest, _ *mcp.SubscriptionsListenResult) {
	s.Remove(SessionID(ctx), req.Params.Notifications.ResourceSubscriptions...)
}

// Recipients returns the sessions that should hear that the document
// docRef of host changed.
func (s *Set) Recipients(host, docRef string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for id, ss := range s.sessions {
		if !ss.subscribed {
			out = append(out, id)
			continue
		}
		for u := range ss.uris {
			if p, err := dpe.Parse(u); err == nil && p.Host == host && p.DocRef == docRef {
				out = append(out, id)
				break
			}
		}
	}
	return out
}

// NotifyUpdated sends notifications/resources/updated for the document
// docRef of host to the sessions of m that should hear of it (Recipients);
// it returns the errors of the sends that failed (a session gone).
func (s *Set) NotifyUpdated(m *server.MCPServer, host, docRef string) []error {
	uri := dpe.Document(host, docRef).String()
	var errs []error
	for _, id := range s.Recipients(host, docRef) {
		if err := m.SendNotificationToSpecificClient(id, mcp.MethodNotificationResourceUpdated, map[string]any{"uri": uri}); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
