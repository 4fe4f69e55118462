// Package docserver serves a folder of real files as A2C-SMCP Finder
// documents over MCP: every supported file under the root is one dpe://
// document (Level 1), readable at the four levels of the specification,
// listed by resources/list, completed by completion/complete, watched for
// changes, and explored with the fs_tree, fs_find and fs_grep tools.
//
// Model decisions:
//
//   - doc_ref: a slug of the file name and 6 hex digits of the SHA-256 of
//     the root-relative path ("q3-report-4f2bf6"); stable for a path,
//     URL-safe, unique in the folder (see DocRef).
//   - Element IDs: {category prefix}-{page}-{ordinal} ("tbl-2-1"), a pure
//     function of the file's content (see package extract).
//   - Files are parsed lazily on their first read and cached by (path,
//     size, mtime). Listing only stats files and peeks at a bounded prefix
//     (or the metadata parts of an office file) for the resource's name
//     (the title) and description (the summary), within a deadline (see
//     peek.go); a file whose peek fails (corrupt, encrypted, a reader that
//     loops) is listed as unreadable with the reason until it changes.
//   - resources/list is ordered by path and paged with an opaque cursor.
//   - Level 0 (dpe://host) pages its documents with offset/limit (default
//     0/100) because each catalog entry needs a parse for page_count.
//   - Level 2 with categories returns only those elements, and
//     element_count counts the returned elements.
//   - Hidden files and directories (names starting with a dot) are not
//     served. Symbolic links are followed only when they stay inside the
//     root (os.Root enforces it); linked directories are not descended.
//   - Errors of a read carry the protocol code (4201-4204) and its details
//     as the JSON-RPC error's code and data (package internal/rpcerr, since
//     mcp-go does not let a handler choose them).
//   - Change notifications: see internal/mcpsubs and notify.go.
//
// # Lock order
//
// Locks taken while another is held, the outer one first:
//
//   - docCache.mu, then a lazy PDF's mu: storing or evicting a document
//     sizes it (estimatedBytes) and closes the evicted one's handle.
//   - a lazy PDF's eng (held while its engine works), then its own mu,
//     attachedPDFs.mu and the memory gate's semaphore. A read waiting for
//     memory reclaims the engines of idle PDFs, whose eng it only tries
//     (TryLock) and never waits for, so two PDFs' readers never wait on
//     each other; attachedPDFs.mu is released before that.
//   - peeks.mu, then diskCache.mu (restorePeeks takes the on-disk
//     verdicts).
//
// The others are leaves: index.mu, textIndex.mu, subscriptions.mu,
// skipLedger.mu (replaceUnder copies the other ledger before locking its
// own), diskCache.mu (update's function only sets the entry's fields)
// and Server.watchMu (held while the watches are added and the text index
// started, which take none of these).
package docserver
