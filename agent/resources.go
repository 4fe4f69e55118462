package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

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

// GetSkill returns the resource relPath ("" is SKILL.md, served without
// its front matter) of the SKILL name on computer. An inline body is
// checked against the answer's sha256 and size; a mismatch is an error.
func (c *Client) GetSkill(ctx context.Context, computer, name, relPath string) (*protocol.GetSkillRet, error) {
	h := c.header(computer)
	req := protocol.GetSkillReq{Agent: h.Agent, ReqID: h.ReqID, Computer: computer, Name: name, RelPath: relPath}
	var ret protocol.GetSkillRet
	if err := c.call(ctx, protocol.EventGetSkill, req, &ret); err != nil {
		return nil, err
	}
	if ret.Body != nil {
		sum := sha256.Sum256([]byte(*ret.Body))
		if got := hex.EncodeToString(sum[:]); !strings.EqualFold(got, ret.SHA256) || int64(len(*ret.Body)) != ret.TotalSize {
			return nil, fmt.Errorf("get_skill %s %s: body of %d bytes, sha256 %s does not match the announced %d bytes, sha256 %s",
				name, ret.RelPath, len(*ret.Body), got, ret.TotalSize, ret.SHA256)
		}
	} else if ret.BlobHandle == "" {
		return nil, fmt.Errorf("get_skill %s %s: the answer has neither body nor blob_handle", name, ret.RelPath)
	}
	return &ret, nil
}
