package server

// Counts returns how many sessions and offices s holds (for tests).
func Counts(s *Server) (sessions, offices int) { return s.reg.counts() }
