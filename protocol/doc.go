// Package protocol holds the A2C-SMCP wire vocabulary shared by every role:
// event names, request and response payloads with their exact JSON field
// names, protocol error codes and the error payload. It does no I/O.
package protocol
