// Package finder is the A2C-SMCP Finder organizer: Organize filters a
// catalog of DPEDocumentSummary entries by keyword and file type, orders it
// by tool-call history and last_modified, and pages it. It does no I/O; the
// Computer's resource index (computer/resindex) collects the catalog.
package finder
