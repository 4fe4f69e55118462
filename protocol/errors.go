package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Protocol error codes. The 4xx HTTP-style codes are the generic ones of the
// base protocol; the 4xxx codes are specific.
const (
	CodeBadRequest   = 400
	CodeUnauthorized = 401
	CodeForbidden    = 403
	CodeNotFound     = 404
	CodeTimeout      = 408
	// CodePayloadTooLarge refuses an answer bigger than a Server carries
	// in one message (MaxPayloadBytes) or than a Computer accepts from an
	// MCP server.
	CodePayloadTooLarge = 413
	// CodeTooManyRequests refuses work over a Server's limits (sessions,
	// requests in flight); retrying later may succeed.
	CodeTooManyRequests = 429
	CodeInternalError   = 500

	CodeToolNotFound              = 4001
	CodeToolDisabled              = 4002
	CodeToolExecutionFailed       = 4003
	CodeToolTimeout               = 4004
	CodeToolRequiresConfirmation  = 4005
	CodeToolAuthorizationRequired = 4006
	CodeToolAuthorizationFailed   = 4007
	CodeVersionMismatch           = 4008

	CodeMCPServerNotFound         = 4014
	CodeMCPCapabilityNotSupported = 4015
	CodeSkillNameInvalid          = 4016
	CodeSkillResourceInaccessible = 4017
	CodeBlobNotAccessible         = 4018
	CodeBlobWriteFailed           = 4019

	CodeRoomFull         = 4101
	CodeRoomNotFound     = 4102
	CodeNotInRoom        = 4103
	CodeCrossRoomAccess  = 4104
	CodeNameTaken        = 4105
	CodeAgentInOtherRoom = 4106

	CodeDocumentNotFound = 4201
	CodePageOutOfRange   = 4202
	CodeElementNotFound  = 4203
	CodeInvalidDPEURI    = 4204
)

// CodeName returns the protocol's name for code, or "" when it has none.
func CodeName(code int) string {
	switch code {
	case CodeBadRequest:
		return "Bad Request"
	case CodeUnauthorized:
		return "Unauthorized"
	case CodeForbidden:
		return "Forbidden"
	case CodeNotFound:
		return "Not Found"
	case CodeTimeout:
		return "Timeout"
	case CodePayloadTooLarge:
		return "Payload Too Large"
	case CodeInternalError:
		return "Internal Error"
	case CodeToolNotFound:
		return "Tool Not Found"
	case CodeToolDisabled:
		return "Tool Disabled"
	case CodeToolExecutionFailed:
		return "Tool Execution Failed"
	case CodeToolTimeout:
		return "Tool Timeout"
	case CodeToolRequiresConfirmation:
		return "Tool Requires Confirmation"
	case CodeToolAuthorizationRequired:
		return "Tool Authorization Required"
	case CodeToolAuthorizationFailed:
		return "Tool Authorization Failed"
	case CodeVersionMismatch:
		return "Protocol Version Mismatch"
	case CodeMCPServerNotFound:
		return "MCP Server Not Found"
	case CodeMCPCapabilityNotSupported:
		return "MCP Capability Not Supported"
	case CodeSkillNameInvalid:
		return "Invalid Skill Name"
	case CodeSkillResourceInaccessible:
		return "Skill Resource Not Accessible"
	case CodeBlobNotAccessible:
		return "Blob Not Accessible"
	case CodeBlobWriteFailed:
		return "Blob Write Failed"
	case CodeRoomFull:
		return "Room Full"
	case CodeRoomNotFound:
		return "Room Not Found"
	case CodeNotInRoom:
		return "Not In Room"
	case CodeCrossRoomAccess:
		return "Cross Room Access"
	case CodeNameTaken:
		return "Name Taken"
	case CodeAgentInOtherRoom:
		return "Agent In Other Room"
	case CodeDocumentNotFound:
		return "Document Not Found"
	case CodePageOutOfRange:
		return "Page Out of Range"
	case CodeElementNotFound:
		return "Element Not Found"
	case CodeInvalidDPEURI:
		return "Invalid DPE URI"
	}
	return ""
}

// Error is a protocol error: the flat ErrorPayload {code, message, details?}
// of the base protocol. It implements error, so it can travel through Go
// call chains and be recovered with errors.As.
type Error struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
	// Extra holds code-specific top-level fields (e.g. server_version for
	// 4008); they are written beside code and message.
	Extra map[string]any `json:"-"`
}

// NewError returns a protocol error with the given code and message.
func NewError(code int, message string) *Error {
	return &Error{Code: code, Message: message}
}

// Errorf returns a protocol error with a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithDetails returns e with details set (it modifies and returns e).
func (e *Error) WithDetails(details map[string]any) *Error {
	e.Details = details
	return e
}

func (e *Error) Error() string {
	if name := CodeName(e.Code); name != "" && name != e.Message {
		return fmt.Sprintf("%d %s: %s", e.Code, name, e.Message)
	}
	return fmt.Sprintf("%d: %s", e.Code, e.Message)
}

// MarshalJSON writes the flat payload, with Extra fields at the top level.
func (e *Error) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, 3+len(e.Extra))
	for k, v := range e.Extra {
		m[k] = v
	}
	m["code"] = e.Code
	m["message"] = e.Message
	if len(e.Details) > 0 {
		m["details"] = e.Details
	}
	return json.Marshal(m)
}

// CodeOf returns the protocol code carried by err, or 0 when err is not (and
// does not wrap) a protocol error.
func CodeOf(err error) int {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return 0
}

// DecodeError recognises a protocol error payload in raw JSON. It accepts the
// flat form {code, message, details?} and the nested {error:{...}} form, and
// reports false for anything else (including successful results that happen
// to be objects without a numeric code).
func DecodeError(raw []byte) (*Error, bool) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, false
	}
	if nested, ok := probe["error"]; ok && len(probe) <= 2 {
		if e, ok := DecodeError(nested); ok {
			return e, true
		}
	}
	codeRaw, ok := probe["code"]
	if !ok {
		return nil, false
	}
	var code float64
	if err := json.Unmarshal(codeRaw, &code); err != nil || code != float64(int(code)) || code <= 0 {
		return nil, false
	}
	msgRaw, ok := probe["message"]
	if !ok {
		return nil, false
	}
	e := &Error{Code: int(code)}
	if err := json.Unmarshal(msgRaw, &e.Message); err != nil {
		return nil, false
	}
	for k, v := range probe {
		switch k {
		case "code", "message":
		case "details":
			var d map[string]any
			if json.Unmarshal(v, &d) == nil {
				e.Details = d
			}
		default:
			var x any
			if json.Unmarshal(v, &x) == nil {
				if e.Extra == nil {
					e.Extra = map[string]any{}
				}
				e.Extra[k] = x
			}
		}
	}
	return e, true
}
