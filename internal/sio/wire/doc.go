// Package wire is the Socket.IO wire format of both sides of the project's
// Socket.IO layer (the client connection in internal/sio, the Server's
// transport in internal/sio/sioserver): a raw-JSON, lenient parser
// (parser.go), walks of valid JSON that validate, split and look up keys
// without decoding (scan.go, valid.go). Payloads cross it as raw JSON
// (json.RawMessage): event and ack arguments stay bytes, so the Server
// decodes only the fields it routes by and forwards the rest untouched.
//
// What a page body costs on the read path (document server → Computer →
// Server → Agent → caller), counted in full encodes and decodes of the
// body; a scan is a non-allocating walk (validation, splitting, key
// lookup). The page is JSON inside the text field of an MCP
// ReadResourceResult, itself JSON, so it is encoded twice before it leaves
// the document server and decoded twice when the caller reads it:
//
//	                             before (library parser)   now
//	document server              1 encode (the page)       1 encode
//	  (mcp-go, JSON-RPC)         1 encode (text escaped)   1 encode
//	Computer (mcp-go client)     1 decode                  1 decode
//	  (ack)                      3 encodes                 1 encode
//	Server                       1 decode + 1 encode       2 scans
//	Agent connection             1 decode + 1 encode       3 scans
//	  error check (DecodeAck)    1 decode (map copy)       (one of the scans)
//	caller (agent.ReadJSON)      1 decode (the result)     1 decode
//	  (the page in its text)     1 decode                  1 decode
//	total                        7 encodes, 6 decodes      3 encodes, 3 decodes
//
// (Before, the Computer's answer was encoded by its handler, then compacted
// into a copy by the connection's json.Marshal of the json.RawMessage and
// again by the library's encoder.) What is left is one encode and one
// decode per layer that has to look inside: the page's JSON and MCP's
// JSON-RPC at the document server, the ReadResourceResult at the Computer
// (mcp-go's client returns it decoded, and the ack is made from it), and
// both at the caller. Passing the Computer's answer through as the bytes
// mcp-go read would remove one encode and one decode, but mcp-go offers no
// raw result.
//
// TestAnswerBytesPassThrough (internal/sio) checks that an answer reaches
// the caller as the bytes the Computer wrote (member order kept, so no map
// round trip on the way).
package wire
