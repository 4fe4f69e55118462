package computer_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/computer"
	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// lockedBuffer is a log sink safe for the Computer's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestMCPSkillModesEndToEnd: our Computer stages the "archive" and
// "mounted" SKILLs of a real stdio MCP server, and of a real Streamable
// HTTP one the archive but not the mounted folder (refused, with the
// reason in the log); our Agent lists and reads them through our Server.
func TestMCPSkillModesEndToEnd(t *testing.T) {
	t.Parallel()
	localDir, remoteDir, outside := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(localDir, "arc.tgz", "SKILL.md"), "---\nname: arc-skill\ndescription: From an archive\n---\nArchived.\n")
	writeFile(t, filepath.Join(localDir, "arc.tgz", "scripts", "go.sh"), "echo go\n")
	writeFile(t, filepath.Join(localDir, "loc.mounted", "SKILL.md"), "---\nname: loc-skill\ndescription: A mounted folder\n---\nMounted.\n")
	writeFile(t, filepath.Join(outside, "secret.txt"), "secret")
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(localDir, "loc.mounted", "escape.txt")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(remoteDir, "farc.tgz", "SKILL.md"), "---\nname: far-archive\ndescription: A remote archive\n---\nFar.\n")
	writeFile(t, filepath.Join(remoteDir, "far.mounted", "SKILL.md"), "---\nname: far-mounted\ndescription: Must not be served\n---\n")

	remote := mcpserver.NewMCPServer("remote-skills", "1.0.0", mcpserver.WithResourceCapabilities(false, true))
	if err := addSkills(remote, remoteDir); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(mcpserver.NewStreamableHTTPServer(remote))
	defer ts.Close()
	localCfg := config.NewStdio("local", os.Args[0])
	localCfg.Params.Env = map[string]string{skillEnv: localDir}
	remoteCfg := config.Server{Key: "remote", Name: "remote", BundleID: "remote", Type: config.TypeStreamable, Params: config.Params{URL: ts.URL + "/mcp"}}

	var logs lockedBuffer
	srv := servertest.Start(t, server.Options{})
	comp, err := computer.New(config.Config{Servers: []config.Server{localCfg, remoteCfg}}, computer.Options{
		Name: "pc", Office: office, ServerURL: srv.URL, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	done := make(chan error, 1)
	runCtx, stop := context.WithCancel(ctx)
	go func() { done <- comp.Run(runCtx) }()
	defer func() { stop(); <-done }()
	ag, err := agent.Connect(ctx, srv.URL, agent.Options{Name: "tester", Logger: servertest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	defer ag.Close()
	if err := ag.JoinOffice(ctx, office); err != nil {
		t.Fatal(err)
	}

	want := []string{"mcp:local:arc-skill", "mcp:local:loc-skill", "mcp:remote:far-archive"}
	var names []string
	skills := map[string]protocol.A2CSkillRef{}
	if !testutil.WaitUntil(30*time.Second, func() bool {
		ret, err := ag.GetSkills(ctx, "pc")
		if err != nil {
			return false
		}
		names = names[:0]
		for _, s := range ret.Skills {
			names = append(names, s.Name)
			skills[s.Name] = s
		}
		slices.Sort(names)
		return slices.Equal(names, want)
	}) {
		t.Fatalf("get_skills listed %v, want %v", names, want)
	}
	mountedPath, err := filepath.EvalSymlinks(filepath.Join(localDir, "loc.mounted"))
	if err != nil {
		t.Fatal(err)
	}
	if s := skills["mcp:local:loc-skill"]; s.Path != mountedPath || s.Source != "mcp:local" || s.URI != "skill://skills.test/loc" {
		t.Errorf("mounted skill %+v, want path %s", s, mountedPath)
	}
	if s := skills["mcp:remote:far-archive"]; s.Source != "mcp:remote" || s.Description != "A remote archive" {
		t.Errorf("remote archive skill %+v", s)
	}
	for _, tc := range []struct{ name, rel, body string }{
		{"mcp:local:arc-skill", "scripts/go.sh", "echo go\n"},
		{"mcp:local:loc-skill", "", "Mounted.\n"},
		{"mcp:remote:far-archive", "", "Far.\n"},
	} {
		ret, err := ag.GetSkill(ctx, "pc", tc.name, tc.rel)
		if err != nil || ret.Body == nil || *ret.Body != tc.body {
			t.Errorf("get_skill %s %q = %+v, %v; want %q", tc.name, tc.rel, ret, err, tc.body)
		}
	}
	_, err = ag.GetSkill(ctx, "pc", "mcp:local:loc-skill", "escape.txt")
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != 4017 || pe.Details["reason"] != "traversal" {
		t.Errorf("get_skill of a link out of the mounted folder = %v, want 4017 traversal", err)
	}
	if l := logs.String(); !strings.Contains(l, "skill://skills.test/far") || !strings.Contains(l, "refused from a remote server") {
		t.Errorf("the log does not say why the remote mounted SKILL was refused:\n%s", l)
	}
}
