package computer_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/computer"
	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// skillEnv makes the test binary a stdio MCP server (built with mcp-go)
// that serves the folders of a directory as SKILLs (addSkills).
const skillEnv = "COMPUTER_TEST_SKILL_MCP"

func serveSkills(dir string) int {
	s := mcpserver.NewMCPServer("skill-test", "1.0.0", mcpserver.WithResourceCapabilities(false, true))
	if err := addSkills(s, dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := mcpserver.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	}
	return 0
}

// addSkills serves each folder <dir>/<name>/ as a SKILL root
// skill://skills.test/<name> in one of the SDK's modes: <leaf>.mounted in
// "mounted" mode (mount_dir the folder), <leaf>.tgz in "archive" mode (the
// folder as a tar.gz, read as skill://skills.test/archives/<leaf>.tar.gz),
// any other in "resources" mode (_meta version 1.2.0, one resource
// skill://skills.test/<name>/<rel> per file).
func addSkills(s *mcpserver.MCPServer, dir string) error {
	tops, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, top := range tops {
		folder := filepath.Join(dir, top.Name())
		if lf, ok := strings.CutSuffix(top.Name(), ".mounted"); ok {
			addRoot(s, "skill://skills.test/"+lf, map[string]any{"source": "mounted", "mount_dir": folder})
			continue
		}
		if lf, ok := strings.CutSuffix(top.Name(), ".tgz"); ok {
			data, err := tarGz(folder)
			if err != nil {
				return err
			}
			uri := "skill://skills.test/archives/" + lf + ".tar.gz"
			addRoot(s, "skill://skills.test/"+lf, map[string]any{"source": "archive", "archive_uri": uri, "archive_format": "tar.gz"})
			s.AddResource(mcp.NewResource(uri, lf+".tar.gz"), func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{mcp.BlobResourceContents{URI: uri, MIMEType: "application/gzip", Blob: base64.StdEncoding.EncodeToString(data)}}, nil
			})
			continue
		}
		base := "skill://skills.test/" + top.Name()
		addRoot(s, base, map[string]any{"source": "resources", "version": "1.2.0"})
		_ = filepath.WalkDir(folder, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(folder, p)
			uri := base + "/" + filepath.ToSlash(rel)
			s.AddResource(mcp.NewResource(uri, rel), func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				b, err := os.ReadFile(p)
				if err != nil {
					return nil, err
				}
				return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, Text: string(b)}}, nil
			})
			return nil
		})
	}
	return nil
}

// addRoot serves a SKILL root resource with _meta meta.
func addRoot(s *mcpserver.MCPServer, uri string, meta map[string]any) {
	root := mcp.NewResource(uri, path.Base(uri))
	root.Meta = &mcp.Meta{AdditionalFields: meta}
	s.AddResource(root, func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, Text: "skill root"}}, nil
	})
}

// tarGz packs the files of folder into a tar.gz, paths relative to it.
func tarGz(folder string) ([]byte, error) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	err := filepath.WalkDir(folder, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(folder, p)
		if err := tw.WriteHeader(&tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err = tw.Write(b)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = gz.Close()
	}
	return buf.Bytes(), err
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSkillsEndToEnd: our Agent -> our Server -> our Computer offering a
// watched skill folder and the skill:// SKILLs of a real stdio MCP server;
// get_skills lists both, get_skill reads them and refuses what it must,
// and editing a SKILL.md reaches the agent as notify:update_skills.
func TestSkillsEndToEnd(t *testing.T) {
	t.Parallel()
	userDir, mcpDir := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(userDir, "pdf-tools", "SKILL.md"), "---\nname: pdf-tools\ndescription: Fill PDF forms\ntags: [pdf]\n---\n# PDF tools\n")
	writeFile(t, filepath.Join(userDir, "pdf-tools", "big.txt"), strings.Repeat("x", 40<<10))
	writeFile(t, filepath.Join(userDir, "pdf-tools", ".skillenv"), "TOKEN=secret")
	writeFile(t, filepath.Join(mcpDir, "sum", "SKILL.md"), "---\nname: summarize\ndescription: Summarise a document\nlicense: MIT\n---\nSummarise it.\n")
	writeFile(t, filepath.Join(mcpDir, "sum", "scripts", "run.sh"), "echo run\n")
	srvCfg := config.NewStdio("skillsrv", os.Args[0])
	srvCfg.Params.Env = map[string]string{skillEnv: mcpDir}

	srv := servertest.Start(t, server.Options{})
	comp, err := computer.New(config.Config{Servers: []config.Server{srvCfg}}, computer.Options{
		Name: "pc", Office: office, ServerURL: srv.URL, Logger: servertest.Logger(),
		SkillDirs: []string{userDir}, Debounce: 20 * time.Millisecond,
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
	updates := make(chan string, 64)
	ag, err := agent.Connect(ctx, srv.URL, agent.Options{Name: "tester", Logger: servertest.Logger(), Handlers: agent.Handlers{
		UpdateSkills: func(n protocol.UpdateComputerConfigReq) { updates <- n.Computer },
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer ag.Close()
	if err := ag.JoinOffice(ctx, office); err != nil {
		t.Fatal(err)
	}

	var skills []protocol.A2CSkillRef
	if !testutil.WaitUntil(30*time.Second, func() bool {
		ret, err := ag.GetSkills(ctx, "pc")
		if err == nil {
			skills = ret.Skills
		}
		return len(skills) == 2
	}) {
		t.Fatalf("get_skills never listed both skills: %+v", skills)
	}
	user, staged := skills[0], skills[1]
	if user.Name != "pdf-tools" || user.Source != "user" || user.Description != "Fill PDF forms" || fmt.Sprint(user.Tags) != "[pdf]" || user.URI != "" {
		t.Errorf("folder skill %+v", user)
	}
	if staged.Name != "mcp:skillsrv:summarize" || staged.Source != "mcp:skillsrv" || staged.URI != "skill://skills.test/sum" ||
		staged.Version != "1.2.0" || staged.License != "MIT" || staged.Description != "Summarise a document" {
		t.Errorf("mcp skill %+v", staged)
	}

	t.Run("get_skill reads SKILL.md without front matter and other files", func(t *testing.T) {
		ret, err := ag.GetSkill(ctx, "pc", "pdf-tools", "")
		if err != nil || ret.Body == nil || *ret.Body != "# PDF tools\n" || ret.RelPath != "SKILL.md" || ret.MIMEType != "text/markdown" {
			t.Fatalf("get_skill pdf-tools = %+v, %v", ret, err)
		}
		ret, err = ag.GetSkill(ctx, "pc", "mcp:skillsrv:summarize", "scripts/run.sh")
		if err != nil || ret.Body == nil || *ret.Body != "echo run\n" || ret.TotalSize != 9 {
			t.Fatalf("get_skill staged script = %+v, %v", ret, err)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		for _, tc := range []struct {
			name, rel string
			code      int
			reason    string
		}{
			{"pdf-tools", "../../etc/passwd", 4017, "traversal"},
			{"pdf-tools", ".skillenv", 4017, "forbidden"},
			{"pdf-tools", "nope.md", 4017, "not_found"},
			{"mcp:skillsrv:absent", "", 4014, ""},
			{"Not A Name", "", 4016, ""},
		} {
			_, err := ag.GetSkill(ctx, "pc", tc.name, tc.rel)
			var pe *protocol.Error
			if !errors.As(err, &pe) || pe.Code != tc.code || (tc.reason != "" && pe.Details["reason"] != tc.reason) {
				t.Errorf("get_skill %s %q = %v, want %d %s", tc.name, tc.rel, err, tc.code, tc.reason)
			}
		}
	})

	t.Run("a resource over the inline budget comes by blob handle", func(t *testing.T) {
		ret, err := ag.GetSkill(ctx, "pc", "pdf-tools", "big.txt")
		if err != nil || ret.Body != nil || ret.BlobHandle == "" || ret.TotalSize != 40<<10 {
			t.Fatalf("get_skill big.txt = %+v, %v; want a blob handle for its %d bytes", ret, err, 40<<10)
		}
		data, info, err := ag.GetBlob(ctx, "pc", ret.BlobHandle, 0)
		if err != nil || string(data) != strings.Repeat("x", 40<<10) || info.SHA256 != ret.SHA256 {
			t.Fatalf("get_blob of the skill's handle: %d bytes, sha256 %s (get_skill said %s), %v", len(data), info.SHA256, ret.SHA256, err)
		}
	})

	t.Run("editing SKILL.md announces update_skills", func(t *testing.T) {
		for len(updates) > 0 {
			<-updates
		}
		writeFile(t, filepath.Join(userDir, "pdf-tools", "SKILL.md"), "---\nname: pdf-tools\ndescription: Fill and sign PDF forms\n---\n# PDF tools v2\n")
		select {
		case c := <-updates:
			if c != "pc" {
				t.Errorf("notify:update_skills names %q", c)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("no notify:update_skills after SKILL.md was edited")
		}
		ret, err := ag.GetSkills(ctx, "pc")
		if err != nil || len(ret.Skills) != 2 || ret.Skills[0].Description != "Fill and sign PDF forms" {
			t.Errorf("after the edit get_skills = %+v, %v", ret, err)
		}
		body, err := ag.GetSkill(ctx, "pc", "pdf-tools", "")
		if err != nil || *body.Body != "# PDF tools v2\n" {
			t.Errorf("after the edit get_skill = %+v, %v", body, err)
		}
	})
}
