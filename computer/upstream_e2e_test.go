package computer_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/computer"
	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// The events of the 0.2-0.4 upstream line between our own roles: our
// Agent -> our Server -> our Computer running serve-docs (a real stdio
// child) and a server that cannot start.
func TestUpstreamEventsEndToEnd(t *testing.T) {
	t.Parallel()
	bin := testutil.Binary(t)
	dir, n := copyCorpus(t, "reports", "notes")
	gone := config.NewStdio("gone", "/nonexistent/mcp-server")
	r := startRig(t, []config.Server{docServer(bin, "docs", dir, "docs.e2e"), gone}, computer.Options{})
	r.catalog(t, agentQuery(100), func(ret *protocol.GetFinderRet) bool { return ret.TotalCount == n })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	t.Run("get_config", func(t *testing.T) {
		cfg, err := r.agent.GetConfig(ctx, "pc")
		if err != nil {
			t.Fatal(err)
		}
		var docs struct {
			BundleID string         `json:"bundle_id"`
			Params   map[string]any `json:"server_parameters"`
		}
		if err := json.Unmarshal(cfg.Servers["docs"], &docs); err != nil || docs.BundleID != "docs" {
			t.Fatalf("docs entry %s: %v", cfg.Servers["docs"], err)
		}
		if docs.Params["encoding"] != "utf-8" || docs.Params["encoding_error_handler"] != "strict" {
			t.Errorf("stdio defaults missing: %v", docs.Params)
		}
		if _, ok := cfg.Servers["gone"]; !ok {
			t.Errorf("a configured server that does not run is still configured: %v", cfg.Servers)
		}
	})

	t.Run("get_resources pages the document server's list", func(t *testing.T) {
		seen := map[string]bool{}
		cursor := ""
		for range 100 {
			ret, err := r.agent.GetResources(ctx, "pc", "docs", cursor)
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range ret.Resources {
				if seen[res.URI] {
					t.Errorf("%s listed twice", res.URI)
				}
				seen[res.URI] = true
				if strings.HasPrefix(res.URI, "dpe://docs.e2e/") && (res.Name == "" || res.MIMEType == "") {
					t.Errorf("resource without name or mime_type: %+v", res)
				}
			}
			if cursor = ret.NextCursor; cursor == "" {
				break
			}
		}
		docs := 0
		for uri := range seen {
			if strings.HasPrefix(uri, "dpe://docs.e2e/") {
				docs++
			}
		}
		if docs < n {
			t.Errorf("%d dpe:// resources listed, want at least the %d documents", docs, n)
		}
		_, err := r.agent.GetResources(ctx, "pc", "gone", "")
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != 4014 || pe.Extra["mcp_server"] != "gone" || !strings.Contains(pe.Message, "not running") {
			t.Errorf("server that cannot start: %v", err)
		}
		if _, err := r.agent.GetResources(ctx, "pc", "nobody", ""); codeOf(err) != 4014 {
			t.Errorf("unknown server: %v", err)
		}
	})

	t.Run("skills and blobs", func(t *testing.T) {
		skills, err := r.agent.GetSkills(ctx, "pc")
		if err != nil || skills.Skills == nil || len(skills.Skills) != 0 || skills.ReqID == "" {
			t.Errorf("get_skills = %+v, %v", skills, err)
		}
		if _, err := r.agent.GetSkill(ctx, "pc", "mcp:docs:summarize", ""); codeOf(err) != 4014 {
			t.Errorf("get_skill of an absent skill: %v", err)
		}
		if _, err := r.agent.GetSkill(ctx, "pc", "Not A Name", ""); codeOf(err) != 4016 {
			t.Errorf("get_skill of a malformed name: %v", err)
		}
		if _, err := r.agent.GetBlobChunk(ctx, "pc", "forged", 0, 0); codeOf(err) != 4018 {
			t.Errorf("get_blob: %v", err)
		}
	})

	t.Run("unknown tool is an error result", func(t *testing.T) {
		res, err := r.agent.CallTool(ctx, "pc", "docs__no_such_tool", nil, 5*time.Second)
		if err != nil || !res.IsError || res.ErrorCode() != protocol.CodeToolNotFound || !strings.Contains(res.Text(), "docs__no_such_tool") {
			t.Errorf("unknown tool: %v %+v", err, res)
		}
	})
}

// While its only document server cannot start, the catalog is an error
// naming it, not an empty list.
func TestCatalogWhileDocsServerDown(t *testing.T) {
	r := startRig(t, []config.Server{config.NewStdio("docs", "/nonexistent/serve-docs")}, computer.Options{})
	// Asked again until the Computer has joined and tried the server once.
	var err error
	if !testutil.WaitUntil(20*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var ret *protocol.GetFinderRet
		ret, err = r.agent.GetFinder(ctx, "pc", agentQuery(10))
		cancel()
		var pe *protocol.Error
		if errors.As(err, &pe) && pe.Code == 4014 && strings.Contains(pe.Message, `"docs"`) && strings.Contains(pe.Message, "/nonexistent/serve-docs") {
			return true
		}
		if ret != nil {
			t.Fatalf("get_finder answered a catalog (%d documents) while the document server is down", ret.TotalCount)
		}
		return false
	}) {
		t.Fatalf("get_finder: %v", err)
	}
}

func agentQuery(limit int) agent.FinderQuery { return agent.FinderQuery{Limit: limit} }
