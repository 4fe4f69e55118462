package docserver

import (
	"github.com/mark3labs/mcp-go/mcp"
)

// Change notifications: the sessions' subscriptions are an mcpsubs.Set
// (s.subs, its hooks installed in newMCPServer), which says who hears that
// a document changed; list_changed goes to every session.

// notifyListChanged tells every session the document list changed.
func (s *Server) notifyListChanged() {
	s.mcp.SendNotificationToAllClients(mcp.MethodNotificationResourcesListChanged, nil)
}

// notifyUpdated tells the interested sessions a document changed.
func (s *Server) notifyUpdated(docRef string) {
	for _, err := range s.subs.NotifyUpdated(s.mcp, s.host, docRef) {
		s.log.Debug("resource updated notification not sent", "doc_ref", docRef, "err", err)
	}
}
