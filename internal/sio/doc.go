// Package sio is the Socket.IO connection the SMCP client roles (Agent and
// Computer) share: it connects to the /smcp namespace with the a2c_version
// query and the shared-token auth, turns acks into JSON results or
// *protocol.Error values, serves server-to-client events, and reconnects
// with backoff.
//
// The project's Socket.IO layer is three packages, the only importers of
// github.com/zishang520/socket.io, each with the workarounds of a library
// behaviour on its side (a comment naming the upstream behaviour and a
// regression test each):
//
//   - wire: the raw-JSON, lenient parser of both sides, and the scans
//     that validate, split and look up JSON without decoding it;
//   - sio (this package): the client connection (conn.go, probe.go,
//     call.go, handle.go, queue.go);
//   - sioserver: the Server's engine gate, its WebSocket transport and
//     fast path, the namespace, and the Redis adapter of scale-out.
//
// A client role compiles wire and this package, never sioserver (the
// library's own client package still imports parts of its server
// package, for shared types).
package sio
