package config

import "encoding/json"

// MarshalJSON writes the entry in the A2C-SMCP server format with its
// parameters as declared (placeholders unresolved, so no resolved secret
// leaves the Computer). It is what client:get_config returns.
func (s Server) MarshalJSON() ([]byte, error) {
	params := map[string]any{}
	p := s.Declared
	if s.Type == TypeStdio {
		params["command"] = p.Command
		params["args"] = nonNil(p.Args)
		params["env"] = p.Env
		if p.Cwd != "" {
			params["cwd"] = p.Cwd
		} else {
			params["cwd"] = nil
		}
		if p.Encoding != "" {
			params["encoding"] = p.Encoding
		}
	} else {
		params["url"] = p.URL
		params["headers"] = p.Headers
		if p.Timeout > 0 {
			params["timeout"] = p.Timeout.Seconds()
		}
		if p.SSEReadTimeout > 0 {
			params["sse_read_timeout"] = p.SSEReadTimeout.Seconds()
		}
		if p.TerminateOnClose != nil {
			params["terminate_on_close"] = *p.TerminateOnClose
		}
	}
	toolMeta := s.ToolMeta
	if toolMeta == nil {
		toolMeta = map[string]ToolMeta{}
	}
	out := map[string]any{
		"name":              s.Name,
		"bundle_id":         s.BundleID,
		"type":              s.Type,
		"disabled":          s.Disabled,
		"forbidden_tools":   nonNil(s.ForbiddenTools),
		"tool_meta":         toolMeta,
		"default_tool_meta": s.DefaultToolMeta,
		"server_parameters": params,
	}
	return json.Marshal(out)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
