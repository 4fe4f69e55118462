package agent

import (
	"context"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// GetResources returns one page of the resources/list of the MCP server
// mcpServer (a bundle_id from GetConfig) of computer; pass the previous
// page's NextCursor to get the next one ("" for the first).
func (c *Client) GetResources(ctx context.Context, computer, mcpServer, cursor string) (*protocol.GetResourcesRet, error) {
	h := c.header(computer)
	req := protocol.GetResourcesReq{Agent: h.Agent, ReqID: h.ReqID, Computer: computer, MCPServer: mcpServer, Cursor: cursor}
	var ret protocol.GetResourcesRet
	if err := c.call(ctx, protocol.EventGetResources, req, &ret); err != nil {
		return nil, err
	}
	return &ret, nil
}

// GetSkills returns the SKILLs computer offers.
func (c *Client) GetSkills(ctx context.Context, computer string) (*protocol.GetSkillsRet, error) {
	var ret protocol.GetSkillsRet
	if err := c.call(ctx, protocol.EventGetSkills, c.header(computer), &ret); err != nil {
		return nil, err
	}
	return &ret, nil
}

// GetSkill asks computer for the resource relPath ("" is SKILL.md) of the
// SKILL name and returns the answer as received.
func (c *Client) GetSkill(ctx context.Context, computer, name, relPath string) (map[string]any, error) {
	h := c.header(computer)
	req := protocol.GetSkillReq{Agent: h.Agent, ReqID: h.ReqID, Computer: computer, Name: name, RelPath: relPath}
	var ret map[string]any
	if err := c.call(ctx, protocol.EventGetSkill, req, &ret); err != nil {
		return nil, err
	}
	return ret, nil
}
