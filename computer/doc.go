// Package computer is the A2C-SMCP Computer role: it runs the configured
// MCP servers, joins an office on the SMCP Server as a computer and serves
// the client:* events (Finder catalog, resource read bridge, Desktop,
// tools, config), emitting server:update_* when its servers change.
//
// # Lock order
//
// The Computer's mu (its connection, the tool calls in flight, the
// servers seen without resources) is a leaf: emit copies the connection
// and releases it before sending. The locks of its parts are leaves too,
// but for two:
//
//   - a server's SKILL staging lock (skillSet.lock, one staging at a time
//     per server) is held across the staging: skillSet.mu and, through
//     emit, the Computer's mu are taken under it; skillSet.mu is released
//     before a staging lock is taken.
//   - toolTable.mu is held while asking the mcpclient.Manager for its
//     connections (the Manager's mu comes after it) and while triggering
//     the debounced tool-list notice (package debounce's lock). The
//     Manager runs Up and Down (serverUp, serverDown) with no lock held,
//     so their reset of the tool table takes toolTable.mu alone.
//
// blobStore.mu, uploadStore.mu and history.mu guard their own stores and
// call nothing of the Computer while held.
package computer
