// Package sio is the project's one Socket.IO layer, and the only importer
// of github.com/zishang520/socket.io: the Server's engine and namespace
// (server side) and the connection of the Agent and Computer roles (client
// side). Payloads cross it as raw JSON (json.RawMessage): a custom parser
// keeps event and ack arguments as bytes, so the Server decodes only the
// fields it routes by and forwards the rest untouched. Every workaround of
// a library behaviour lives here, each with a comment naming the upstream
// behaviour and a regression test.
package sio
