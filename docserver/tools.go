package docserver

import "github.com/mark3labs/mcp-go/server"

// addTools registers the fs_tree, fs_find and fs_grep tools.
func (s *Server) addTools(m *server.MCPServer) {}
