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
//
// # Lock order
//
// A Conn's emitMu (the writes on its socket) comes before its mu (the
// socket, the state, the handlers): reply holds emitMu and takes mu to
// see whether the Conn closed, and nothing takes emitMu with mu held
// (shutdown releases mu first). mu comes before a serialQueue's mu
// (setStateLocked queues the state callbacks). An opening's mu is held
// around the library's Connect and Disconnect of the socket being
// opened, with no other lock of this package held; the library's
// callbacks then take mu after it.
package sio
