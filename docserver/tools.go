package docserver

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/docserver/fstools"
)

// addTools registers fs_tree, fs_find and fs_grep (read-only, idempotent).
// A bad argument or a path outside the root is a tool error
// (CallToolResult.isError), as MCP asks for tool failures.
func (s *Server) addTools(m *server.MCPServer) {
	tools := fstools.New(s.root)
	ro := []mcp.ToolOption{
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(false),
	}
	m.AddTool(mcp.NewTool("fs_tree", append([]mcp.ToolOption{
		mcp.WithDescription("Get a recursive directory tree of the served folder as nested JSON (name → node; files have type and size, directories count their direct children). " +
			"Directories that exceed the entry budget or the depth are marked `collapsed: true`: call fs_tree with a narrower path to expand them. " +
			"`truncated` tells that the budget ran out. Usually the first tool to call when exploring the folder."),
		mcp.WithString("path", mcp.Description("Directory to start from, relative to the folder (e.g. 'reports'). Omit for the folder itself.")),
		mcp.WithNumber("depth", mcp.Description("Max recursion depth (default 3, -1 for unlimited). Directories beyond it are collapsed.")),
		mcp.WithNumber("maxEntries", mcp.Description("Max total entries in the result (default 500, at most 10000). When the budget is exhausted, remaining directories are collapsed.")),
	}, ro...)...), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tree, err := tools.Tree(ctx, fstools.TreeParams{
			Path:       req.GetString("path", ""),
			Depth:      req.GetInt("depth", fstools.DefaultTreeDepth),
			MaxEntries: req.GetInt("maxEntries", fstools.DefaultTreeMaxEntries),
		})
		return toolResult(tree, err)
	})
	m.AddTool(mcp.NewTool("fs_find", append([]mcp.ToolOption{
		mcp.WithDescription("Find files and directories by glob. A pattern without '/' matches names anywhere under path ('*.xlsx'); with '/', it matches paths relative to path, and '**' matches any number of directories ('reports/**/*.md'). Results are bounded by maxResults; `truncated` tells there were more."),
		mcp.WithString("pattern", mcp.Required(), mcp.Description("Glob pattern, e.g. '*.md' or 'data/**/*.csv'")),
		mcp.WithString("path", mcp.Description("Directory to search, relative to the folder. Omit for the whole folder.")),
		mcp.WithNumber("maxResults", mcp.Description("Max matches returned (default 200, at most 5000).")),
	}, ro...)...), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		pattern, err := req.RequireString("pattern")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		res, err := tools.Find(ctx, fstools.FindParams{
			Pattern:    pattern,
			Path:       req.GetString("path", ""),
			MaxResults: req.GetInt("maxResults", fstools.DefaultFindMaxResults),
		})
		return toolResult(res, err)
	})
	m.AddTool(mcp.NewTool("fs_grep", append([]mcp.ToolOption{
		mcp.WithDescription("Search text files of the folder for a string (or an RE2 regular expression with regex: true). Binary files are skipped and only the first MiB of a file is searched. Returns matching lines {path, line, text}; stops after maxFiles files or maxMatches matches and sets `truncated`."),
		mcp.WithString("pattern", mcp.Required(), mcp.Description("Text to find, or a regular expression when regex is true")),
		mcp.WithBoolean("regex", mcp.Description("Treat pattern as an RE2 regular expression (default false)")),
		mcp.WithString("path", mcp.Description("Directory to search, relative to the folder. Omit for the whole folder.")),
		mcp.WithString("glob", mcp.Description("Only search files matching this glob, e.g. '*.md'")),
		mcp.WithNumber("maxFiles", mcp.Description("Max files scanned (default 500).")),
		mcp.WithNumber("maxMatches", mcp.Description("Max matching lines returned (default 100).")),
		mcp.WithBoolean("ignoreCase", mcp.Description("Case-insensitive match (default false)")),
	}, ro...)...), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		pattern, err := req.RequireString("pattern")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		res, err := tools.Grep(ctx, fstools.GrepParams{
			Pattern:    pattern,
			Regex:      req.GetBool("regex", false),
			Path:       req.GetString("path", ""),
			Glob:       req.GetString("glob", ""),
			MaxFiles:   req.GetInt("maxFiles", fstools.DefaultGrepMaxFiles),
			MaxMatches: req.GetInt("maxMatches", fstools.DefaultGrepMaxMatches),
			IgnoreCase: req.GetBool("ignoreCase", false),
		})
		return toolResult(res, err)
	})
}

// toolResult turns a tool's value or error into a CallToolResult: the JSON
// as text and as structured content, or an error result.
func toolResult(v any, err error) (*mcp.CallToolResult, error) {
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultStructured(v, string(b)), nil
}
