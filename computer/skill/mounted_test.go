package skill

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mountedServer serves one "mounted" SKILL skill://t.test/m of mount_dir
// dir.
func mountedServer(dir any) *fakeMCP {
	f := &fakeMCP{}
	f.add("skill://t.test/m", map[string]any{"source": "mounted", "mount_dir": dir, "version": 3}, nil)
	return f
}

func TestMountedFromAStdioServerIsServedInPlace(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "skill")
	write(t, filepath.Join(dir, File), goodSkill)
	write(t, filepath.Join(dir, "scripts", "fill.py"), "print('hi')\n")
	write(t, filepath.Join(base, "secret.txt"), "secret")
	if err := os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(dir, "escape.txt")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	home, refs, problems := stage(t, mountedServer(link), local)
	if len(problems) != 0 || len(refs) != 1 {
		t.Fatalf("refs %+v problems %v", refs, problems)
	}
	r := refs[0]
	if r.Name != "mcp:srv:pdf-tools" || r.Source != "mcp:srv" || r.URI != "skill://t.test/m" || r.Version != "3" || r.Path != real {
		t.Errorf("ref %+v, want path %s", r, real)
	}
	if got := staged(t, home); len(got) != 0 {
		t.Errorf("a mounted SKILL was copied: %v", got)
	}
	if res, err := Open(r.Path, "scripts/fill.py", DefaultMaxSize); err != nil || string(res.Data) != "print('hi')\n" {
		t.Errorf("Open(scripts/fill.py) = %+v, %v", res, err)
	}
	var ae *AccessError
	if _, err := Open(r.Path, "escape.txt", DefaultMaxSize); !errors.As(err, &ae) || ae.Reason != ReasonTraversal {
		t.Errorf("Open of a link out of the mounted folder = %v, want %s", err, ReasonTraversal)
	}
}

func TestMountedRefusals(t *testing.T) {
	base := t.TempDir()
	good := filepath.Join(base, "good")
	write(t, filepath.Join(good, File), goodSkill)
	write(t, filepath.Join(base, "plain.txt"), "x")
	write(t, filepath.Join(base, "empty", "README.md"), "no SKILL.md")
	linked := filepath.Join(base, "linked")
	if err := os.MkdirAll(linked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(good, File), filepath.Join(linked, File)); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(base, "badname", File), "---\nname: Bad_Name\ndescription: d\n---\n")
	for _, tc := range []struct {
		name string
		o    Origin
		dir  any
		want string
	}{
		{"from a Streamable HTTP server", Origin{BundleID: "srv", URL: "https://remote.test/mcp"}, good, "refused from a remote server"},
		{"no mount_dir", local, nil, "mount_dir is missing"},
		{"relative", local, "good", "not an absolute path"},
		{"missing", local, filepath.Join(base, "nothing"), "no such file"},
		{"a file", local, filepath.Join(base, "plain.txt"), "not a folder"},
		{"no SKILL.md", local, filepath.Join(base, "empty"), "SKILL.md of mount_dir"},
		{"SKILL.md a link out of the folder", local, linked, "escapes"},
		{"front matter name not kebab case", local, filepath.Join(base, "badname"), "front matter name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, refs, problems := stage(t, mountedServer(tc.dir), tc.o)
			if len(refs) != 0 || len(problems) != 1 || !strings.Contains(problems[0].Error(), tc.want) {
				t.Fatalf("refs %+v problems %v, want one saying %q", refs, problems, tc.want)
			}
		})
	}
}

// TestModesTogether: one server with a SKILL of each mode and a broken
// one; the broken one is a problem, the others are listed, and only the
// two copied ones are in the staging folder.
func TestModesTogether(t *testing.T) {
	mount := filepath.Join(t.TempDir(), "m")
	write(t, filepath.Join(mount, File), "---\nname: mounted-one\ndescription: m\n---\n")
	srv := mountedServer(mount)
	srv.add("skill://t.test/res", map[string]any{"source": "resources"}, nil)
	srv.add("skill://t.test/res/"+File, nil, []byte("---\nname: res-one\ndescription: r\n---\nbody\n"))
	srv.add("skill://t.test/res/scripts/a.sh", nil, []byte("echo a\n"))
	srv.add("skill://t.test/arc", map[string]any{"source": "archive", "archive_uri": "skill://t.test/files/arc", "archive_format": "tar.gz"}, nil)
	srv.add("skill://t.test/files/arc", nil, tgzOf(t, file(File, "---\nname: arc-one\ndescription: a\n---\n")))
	srv.add("skill://t.test/bad", map[string]any{"source": "archive", "archive_uri": "skill://t.test/files/bad", "archive_format": "zip"}, nil)
	srv.add("skill://t.test/files/bad", nil, zipOf(t, file(File, goodSkill), file("../x", "x")))
	srv.add("skill://t.test/odd", map[string]any{"source": "copied"}, nil)
	home, refs, problems := stage(t, srv, local)
	var names []string
	for _, r := range refs {
		names = append(names, r.Name)
	}
	if strings.Join(names, " ") != "mcp:srv:mounted-one mcp:srv:res-one mcp:srv:arc-one" {
		t.Errorf("listed %v", names)
	}
	if len(problems) != 2 || problems[0].Path != "skill://t.test/bad" || !strings.Contains(problems[1].Error(), "not a staging mode") {
		t.Errorf("problems %v", problems)
	}
	if got := strings.Join(staged(t, home), " "); got != "arc-one res-one" {
		t.Errorf("staging folder holds %q", got)
	}
}
