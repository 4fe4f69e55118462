package server

// Counts returns how many sessions and offices s holds (for tests).
func Counts(s *Server) (sessions, offices int) { return s.sessions.len(), s.store.officeCount() }

// EngineSessions returns how many engine.io sessions s holds, namespace
// joined or not (for tests).
func EngineSessions(s *Server) int { return s.io.Sessions() }
