// Package dpe implements the Document-Page-Element model of A2C-SMCP
// Finder: the dpe:// URI (parse, build, the eight validation rules), the 19
// element categories with the content shape each one uses, and rendering of
// pages and elements to Markdown and plain text. Everything here is a pure
// function of its input.
package dpe
