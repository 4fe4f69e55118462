// Package sio is the project's one Socket.IO layer, and the only importer
// of github.com/zishang520/socket.io: the Server's engine and namespace
// (server side) and the connection of the Agent and Computer roles (client
// side). Payloads cross it as raw JSON (json.RawMessage): a custom parser
// keeps event and ack arguments as bytes, so the Server decodes only the
// fields it routes by and forwards the rest untouched. Every workaround of
// a library behaviour lives here, each with a comment naming the upstream
// behaviour and a regression test.
//
// Files: parser.go (the raw-JSON, lenient Socket.IO parser of both sides),
// scan.go (walking valid JSON without decoding it), engine.go and
// server.go (the Server's engine gate and namespace), conn.go, probe.go,
// call.go, handle.go and queue.go (the client connection).
//
// What a page body costs on the read path (document server → Computer →
// Server → Agent → caller), counted in full encodes and decodes of the
// body; a scan is a non-allocating walk (validation, splitting, key
// lookup):
//
//	                           before (library parser)     now
//	document server (MCP)      1 encode                    1 encode
//	Computer (mcp-go, ack)     1 decode + 3 encodes        1 decode + 1 encode
//	Server                     1 decode + 1 encode         2 scans
//	Agent connection           1 decode + 1 encode         3 scans
//	  error check (DecodeAck)  1 decode (map copy)         (one of the scans)
//	caller (agent.ReadResource) 1 decode                   1 decode
//	total                      6 encodes, 5 decodes        2 encodes, 2 decodes
//
// (Before, the Computer's answer was encoded by its handler, then compacted
// into a copy by the connection's json.Marshal of the json.RawMessage and
// again by the library's encoder.)
//
// TestAnswerBytesPassThrough checks that an answer reaches the caller as
// the bytes the Computer wrote (member order kept, so no map round trip on
// the way).
package sio
