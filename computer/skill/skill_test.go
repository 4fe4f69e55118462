package skill

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodSkill = `---
name: pdf-tools
description: Fill and merge PDF forms
license: MIT
compatibility: python>=3.10
allowed-tools: Bash
tags: [pdf, forms]
metadata:
  author: someone
  1: numeric key
---
# PDF tools

Use scripts/fill.py.
`

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFrontMatterFillsTheRef(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "pdf-tools", File), goodSkill)
	refs, problems := ScanDirs([]string{root})
	if len(problems) != 0 || len(refs) != 1 {
		t.Fatalf("refs %+v problems %v", refs, problems)
	}
	r := refs[0]
	if r.Name != "pdf-tools" || r.Source != SourceUser || r.URI != "" || r.Description != "Fill and merge PDF forms" ||
		r.License != "MIT" || r.Compatibility != "python>=3.10" || r.Path != filepath.Join(root, "pdf-tools") {
		t.Errorf("ref %+v", r)
	}
	if strings.Join(r.AllowedTools, ",") != "Bash" || strings.Join(r.Tags, ",") != "pdf,forms" {
		t.Errorf("allowed_tools %v tags %v", r.AllowedTools, r.Tags)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("the ref does not encode (YAML keys that are not strings): %v", err)
	}
	if !strings.Contains(string(b), `"skill_metadata":{"1":"numeric key","author":"someone"}`) {
		t.Errorf("json %s", b)
	}
}

func TestTagsThatAreNotStringsAreOmitted(t *testing.T) {
	fm, err := ParseFrontMatter("---\ndescription: d\ntags: [a, 3]\nallowed-tools: [Read, Write]\n---\n")
	if err != nil {
		t.Fatal(err)
	}
	ref := refOf(t, fm)
	if ref.Tags != nil || strings.Join(ref.AllowedTools, ",") != "Read,Write" {
		t.Errorf("tags %v allowed %v", ref.Tags, ref.AllowedTools)
	}
}

func TestBadSkillsAreSkippedWithAReason(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	write(t, filepath.Join(root, "bad-yaml", File), "---\nname: x\ndescription: [unclosed\n---\nbody\n")
	write(t, filepath.Join(root, "no-desc", File), "---\nname: no-desc\n---\nbody\n")
	write(t, filepath.Join(root, "no-front", File), "# just markdown\n")
	write(t, filepath.Join(root, "Bad_Name", File), goodSkill)
	write(t, filepath.Join(root, "ok", File), goodSkill)
	write(t, filepath.Join(root, "not-a-skill", "README.md"), "no SKILL.md here")
	write(t, filepath.Join(other, "ok", File), goodSkill) // same name, later root
	refs, problems := ScanDirs([]string{root, other, filepath.Join(root, "missing")})
	if len(refs) != 1 || refs[0].Name != "ok" || refs[0].Path != filepath.Join(root, "ok") {
		t.Fatalf("refs %+v", refs)
	}
	want := map[string]string{
		"bad-yaml": "not YAML", "no-desc": "no description", "no-front": "no YAML front matter",
		"Bad_Name": "not a SKILL name", filepath.Join(other, "ok"): "taken",
	}
	if len(problems) != len(want) {
		t.Errorf("problems %v", problems)
	}
	for _, p := range problems {
		key := filepath.Base(p.Path)
		if strings.HasPrefix(p.Path, other) {
			key = p.Path
		}
		if w, ok := want[key]; !ok || !strings.Contains(p.Error(), w) {
			t.Errorf("problem %v, want one saying %q", p, w)
		}
	}
}

func TestOpenServesTheBodyWithoutFrontMatter(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, File), goodSkill)
	write(t, filepath.Join(root, "scripts", "fill.py"), "print('hi')\n")
	r, err := Open(root, "", DefaultMaxSize)
	if err != nil {
		t.Fatal(err)
	}
	body := "# PDF tools\n\nUse scripts/fill.py.\n"
	sum := sha256.Sum256([]byte(body))
	if string(r.Data) != body || r.SHA256 != hex.EncodeToString(sum[:]) || r.MIMEType != "text/markdown" || r.RelPath != File || !r.Text {
		t.Errorf("resource %+v %q", r, r.Data)
	}
	r, err = Open(root, "scripts/./fill.py", DefaultMaxSize)
	if err != nil || string(r.Data) != "print('hi')\n" || r.MIMEType != "text/x-python" || r.RelPath != "scripts/./fill.py" {
		t.Errorf("script %+v %v", r, err)
	}
}

func TestOpenRefusals(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "skill")
	write(t, filepath.Join(root, File), goodSkill)
	write(t, filepath.Join(root, ".skillenv"), "TOKEN=secret")
	write(t, filepath.Join(base, "outside.txt"), "secret")
	write(t, filepath.Join(root, "big.txt"), strings.Repeat("x", 2000))
	if err := os.Symlink(filepath.Join(base, "outside.txt"), filepath.Join(root, "escape.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, ".skillenv"), filepath.Join(root, "env-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ rel, reason string }{
		{"../outside.txt", ReasonTraversal},
		{"a/../../outside.txt", ReasonTraversal},
		{"/etc/passwd", ReasonTraversal},
		{`..\outside.txt`, ReasonTraversal},
		{"C:/x", ReasonTraversal},
		{"escape.txt", ReasonTraversal},
		{".", ReasonTraversal},
		{".skillenv", ReasonForbidden},
		{"sub/.SKILLENV", ReasonForbidden}, // absent, still forbidden: existence does not show
		{"env-link", ReasonForbidden},
		{"missing.md", ReasonNotFound},
		{"dir", ReasonNotFound},
		{"big.txt", ReasonTooLarge},
	} {
		_, err := Open(root, tc.rel, 1000)
		var ae *AccessError
		if !errors.As(err, &ae) || ae.Reason != tc.reason || ae.RelPath != tc.rel {
			t.Errorf("Open(%q) = %v, want reason %s", tc.rel, err, tc.reason)
			continue
		}
		if tc.reason == ReasonTooLarge && ae.TotalSize != 2000 {
			t.Errorf("too_large total_size %d", ae.TotalSize)
		}
	}
}

func TestValidName(t *testing.T) {
	for _, ok := range []string{"a", "pdf-tools", "plug:skill", "mcp:my_bundle-1:x9"} {
		if err := ValidName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "A", "a--b", "-a", "a:b:c", "mcp:a__b:c", "mcp:b:C", "a:b:c:d", strings.Repeat("a", 65)} {
		if ValidName(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestStripFrontMatter(t *testing.T) {
	for in, want := range map[string]string{
		"---\na: 1\n---\nbody":           "body",
		"---\r\na: 1\r\n---\r\nbody\r\n": "body\r\n",
		"no front\n---\nx":               "no front\n---\nx",
		"---\nunclosed\nbody":            "---\nunclosed\nbody",
	} {
		if got := StripFrontMatter(in); got != want {
			t.Errorf("Strip(%q) = %q, want %q", in, got, want)
		}
	}
}
