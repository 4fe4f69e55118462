package agent_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// TestGetSkillChecksTheBody: GetSkill sends name and rel_path and returns
// the typed answer; a body that does not match its sha256 or size, or an
// answer with neither body nor blob_handle, is an error, not data.
func TestGetSkillChecksTheBody(t *testing.T) {
	body := "# Hello\n"
	sum := sha256.Sum256([]byte(body))
	good := hex.EncodeToString(sum[:])
	answers := map[string]map[string]any{
		"good":     {"name": "good", "rel_path": "SKILL.md", "mime_type": "text/markdown", "total_size": len(body), "sha256": good, "body": body},
		"bad-sum":  {"name": "bad-sum", "rel_path": "SKILL.md", "mime_type": "text/markdown", "total_size": len(body), "sha256": strings.Repeat("0", 64), "body": body},
		"bad-size": {"name": "bad-size", "rel_path": "SKILL.md", "mime_type": "text/markdown", "total_size": 99, "sha256": good, "body": body},
		"empty":    {"name": "empty", "rel_path": "SKILL.md", "mime_type": "text/markdown", "total_size": 0, "sha256": good},
		"handle":   {"name": "handle", "rel_path": "a.png", "mime_type": "image/png", "total_size": 5000, "sha256": good, "blob_handle": "h1"},
	}
	srv := servertest.Start(t, server.Options{})
	var rec recorder
	servertest.NewComputer(t, srv.URL, "o1", "pc", servertest.Handlers{
		protocol.EventGetSkill: rec.handler(func(req map[string]any) (any, error) {
			a := answers[req["name"].(string)]
			a["req_id"] = req["req_id"]
			return a, nil
		}),
	})
	a := connect(t, srv.URL, agent.Options{Name: "bot"})
	ctx := testCtx(t)
	if err := a.JoinOffice(ctx, "o1"); err != nil {
		t.Fatal(err)
	}
	ret, err := a.GetSkill(ctx, "pc", "good", "")
	if err != nil || ret.Body == nil || *ret.Body != body || ret.SHA256 != good {
		t.Fatalf("good = %+v, %v", ret, err)
	}
	if ret, err := a.GetSkill(ctx, "pc", "handle", "a.png"); err != nil || ret.BlobHandle != "h1" || ret.Body != nil {
		t.Errorf("handle = %+v, %v", ret, err)
	}
	rec.mu.Lock()
	first, second := rec.reqs[0], rec.reqs[1]
	rec.mu.Unlock()
	if got := second["rel_path"]; got != "a.png" {
		t.Errorf("rel_path sent %v", got)
	}
	if _, ok := first["rel_path"]; ok {
		t.Errorf("an empty rel_path was sent: %v", first)
	}
	for _, name := range []string{"bad-sum", "bad-size", "empty"} {
		if ret, err := a.GetSkill(ctx, "pc", name, ""); err == nil {
			t.Errorf("%s accepted: %+v", name, ret)
		}
	}
}
