package docserver

import (
	"context"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// subscriptions tracks, per MCP session, the resources it subscribed to.
//
// mcp-go v1.2.1 accepts resources/subscribe (and the subscriptions/listen
// stream of protocol 2026-07-28) but its stdio and in-process sessions do
// not record subscriptions, and it has no fan-out for
// notifications/resources/updated. The server records them from hooks and
// sends updated itself:
//
//   - a session that subscribed (resources/subscribe, or resource URIs in
//     subscriptions/listen) to a document's Level 1 URI, or to any URI of
//     that document (a page, an element, with a query), gets
//     notifications/resources/updated {uri: the Level 1 URI};
//   - a session that never subscribed to anything and has no listen stream
//     gets updated for every changed document: legacy clients (and the
//     Computer) learn of content changes without having to subscribe to
//     every document first. MCP lets a server send updated only for
//     subscribed resources, so a client that wants that strictness
//     subscribes to something and from then on receives only what it
//     subscribed to;
//   - list_changed goes to every session, except listen streams that did
//     not ask for it (mcp-go filters those).
type subscriptions struct {
	mu       sync.Mutex
	sessions map[string]*sessionSubs
}

type sessionSubs struct {
	uris       map[string]int // subscribed URI → number of subscriptions
	subscribed bool           // ever subscribed (or listened)
}

func newSubscriptions() *subscriptions {
	return &subscriptions{sessions: map[string]*sessionSubs{}}
}

func sessionID(ctx context.Context) string {
	if s := server.ClientSessionFromContext(ctx); s != nil {
		return s.SessionID()
	}
	return ""
}

func (s *subscriptions) session(id string) *sessionSubs {
	ss, ok := s.sessions[id]
	if !ok {
		ss = &sessionSubs{uris: map[string]int{}}
		s.sessions[id] = ss
	}
	return ss
}

func (s *subscriptions) register(_ context.Context, cs server.ClientSession) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.session(cs.SessionID())
}

func (s *subscriptions) unregister(_ context.Context, cs server.ClientSession) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, cs.SessionID())
}

func (s *subscriptions) add(id string, uris ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.session(id)
	ss.subscribed = true
	for _, u := range uris {
		ss.uris[u]++
	}
}

func (s *subscriptions) remove(id string, uris ...string) {
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

func (s *subscriptions) afterSubscribe(ctx context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
	s.add(sessionID(ctx), req.Params.URI)
}

func (s *subscriptions) afterUnsubscribe(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
	s.remove(sessionID(ctx), req.Params.URI)
}

// beforeListen records the resources a subscriptions/listen stream asks
// for; the stream blocks until the client ends it, when afterListen runs.
func (s *subscriptions) beforeListen(ctx context.Context, _ any, req *mcp.SubscriptionsListenRequest) {
	s.add(sessionID(ctx), req.Params.Notifications.ResourceSubscriptions...)
}

func (s *subscriptions) afterListen(ctx context.Context, _ any, req *mcp.SubscriptionsListenRequest, _ *mcp.SubscriptionsListenResult) {
	s.remove(sessionID(ctx), req.Params.Notifications.ResourceSubscriptions...)
}

// recipients returns the sessions that should hear that the document
// docURI (a Level 1 URI) changed.
func (s *subscriptions) recipients(host, docRef string) []string {
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

// notifyListChanged tells every session the document list changed.
func (s *Server) notifyListChanged() {
	s.mcp.SendNotificationToAllClients(mcp.MethodNotificationResourcesListChanged, nil)
}

// notifyUpdated tells the interested sessions a document changed.
func (s *Server) notifyUpdated(docRef string) {
	uri := dpe.Document(s.host, docRef).String()
	for _, id := range s.subs.recipients(s.host, docRef) {
		if err := s.mcp.SendNotificationToSpecificClient(id, mcp.MethodNotificationResourceUpdated, map[string]any{"uri": uri}); err != nil {
			s.log.Debug("resource updated notification not sent", "session", id, "uri", uri, "err", err)
		}
	}
}
