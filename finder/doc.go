// Package finder is the Computer side of A2C-SMCP Finder without sockets:
// Organize (filter, server priority, last_modified order, paging) and the
// aggregator that collects dpe:// documents from MCP servers, caches their
// summaries and detects changes.
package finder
