// Package dpe implements the Document-Page-Element model of A2C-SMCP
// Finder: the dpe:// URI (parse, build, the eight validation rules), the 19
// element categories with the content shape each one uses (the spec's keys
// and the optional rich keys that keep a source's structure), and rendering
// of all four levels (catalog, document, page, element) to Markdown and
// plain text, with the escaping that keeps plain text literal in Markdown.
// Everything here is a pure function of its input.
package dpe
