package docserver

import (
	"context"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// The tests of this file need a server that file permissions apply to.
// Root reads a file of mode 000 all the same, so when the tests run as
// root (as they do in CI containers) the serve-docs binary is started as
// the user "nobody"; otherwise it runs as the test's own user.

// unprivileged is the user a permission test runs serve-docs as: nil for
// the test's own user (not root), else nobody's credentials.
func unprivileged(t *testing.T) *syscall.Credential {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		testutil.Missing(t, "running as root, where file permissions do not stop reads, and there is no user \"nobody\" to run serve-docs as: "+err.Error())
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}
}

// accessSetup starts a permission test: the user to run serve-docs as
// (see unprivileged) and a folder it can reach.
func accessSetup(t *testing.T) (*syscall.Credential, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	return unprivileged(t), accessDir(t)
}

// accessDir is a folder the unprivileged user can reach (t.TempDir's are
// private to the test's user).
func accessDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "docserver-access-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Give back the permissions the test took away, then remove.
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			os.Chmod(p, 0o755)
			return nil
		})
		os.RemoveAll(dir)
	})
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// serveAs starts `smcp-browse serve-docs dir` as cred (nil: this user)
// and connects a client; the server's log is shown when the test fails.
func serveAs(t *testing.T, cred *syscall.Credential, dir string) (*client.Client, *notes) {
	t.Helper()
	bin := testutil.Binary(t)
	home := accessDir(t) // the binary (root's cache is private), cache and log
	if cred != nil {
		bin = filepath.Join(home, "bin", "smcp-browse")
		copyExecutable(t, testutil.Binary(t), bin)
		if err := os.Chown(home, int(cred.Uid), int(cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	logFile := filepath.Join(home, "serve-docs.log")
	tr := transport.NewStdioWithOptions(bin, []string{"XDG_CACHE_HOME=" + home},
		[]string{"serve-docs", dir, "--host", testHost, "--debounce", "50ms", "--log-file", logFile, "--log-level", "debug"},
		transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
			c := exec.CommandContext(ctx, command, args...)
			c.Env = append(os.Environ(), env...)
			c.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
			return c, nil
		}))
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	showLogOnFailure(t, logFile)
	return connect(t, tr)
}

func copyExecutable(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// catalogByPath reads the whole catalog and indexes it by path.
func catalogByPath(t *testing.T, c *client.Client) map[string]protocol.DPEDocumentSummary {
	t.Helper()
	var cat protocol.DPECatalog
	readJSON(t, c, "dpe://"+testHost, &cat)
	m := map[string]protocol.DPEDocumentSummary{}
	for _, d := range cat.Documents {
		m[d.Path] = d
	}
	return m
}

// waitCatalog waits (up to 20 s) until the catalog entry of path
// satisfies ok, asking again at each notification from the server.
func waitCatalog(t *testing.T, c *client.Client, n *notes, path, what string, ok func(protocol.DPEDocumentSummary, bool) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		d, found := catalogByPath(t, c)[path]
		if ok(d, found) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not %s within 20 s: %+v (listed %v)", path, what, d, found)
		}
		select {
		case <-n.ch:
		case <-time.After(time.Second):
		}
	}
}

func chmod(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// TestPermissionChangeRereads makes files unreadable and readable again
// under a running serve-docs (chmod, and chown when the test is root): the
// watcher sees the change and the catalog follows, without the file's
// contents or modification time changing.
func TestPermissionChangeRereads(t *testing.T) {
	cred, dir := accessSetup(t)
	a, b := filepath.Join(dir, "a.md"), filepath.Join(dir, "b.md")
	writeFile(t, a, "# Alpha\n\nThe first file.\n")
	writeFile(t, b, "# Beta\n\nThe second file.\n")
	chmod(t, b, 0)
	c, n := serveAs(t, cred, dir)

	readable := func(title string) func(protocol.DPEDocumentSummary, bool) bool {
		return func(d protocol.DPEDocumentSummary, found bool) bool {
			return found && d.Unreadable == "" && d.Title == title
		}
	}
	denied := func(d protocol.DPEDocumentSummary, found bool) bool {
		return found && strings.Contains(d.Unreadable, "permission denied")
	}
	waitCatalog(t, c, n, "a.md", "readable", readable("Alpha"))
	waitCatalog(t, c, n, "b.md", "unreadable", denied)
	uri := func(rel string) string { return "dpe://" + testHost + "/" + DocRef(rel) }
	// Each change is announced (the Computer re-reads a document when told
	// it changed), then seen by a read.
	change := func(rel, what string, f func(), ok func(protocol.DPEDocumentSummary, bool) bool) {
		t.Helper()
		n.reset()
		f()
		n.wait(t, "notifications/resources/updated", uri(rel), 20*time.Second)
		if d, found := catalogByPath(t, c)[rel]; !ok(d, found) {
			t.Fatalf("%s %s: catalog entry %+v", rel, what, d)
		}
	}
	change("b.md", "made readable again (chmod 644)", func() { chmod(t, b, 0o644) }, readable("Beta"))
	change("a.md", "made unreadable (chmod 000)", func() { chmod(t, a, 0) }, denied)
	if cred != nil {
		// Ownership: a file private to root becomes the server user's.
		change("a.md", "private to root (chmod 600)", func() { chmod(t, a, 0o600) }, denied)
		change("a.md", "given to the server's user (chown)", func() {
			if err := os.Chown(a, int(cred.Uid), int(cred.Gid)); err != nil {
				t.Fatal(err)
			}
		}, readable("Alpha"))
	}
}

// TestUnreadableFolderIsListed gives serve-docs a folder it cannot open
// and one it can list but not enter: each is listed as one unreadable
// entry (file_type folder) saying why, where they used to be left out
// without a word; once the folders are opened up, their files are listed
// and read.
func TestUnreadableFolderIsListed(t *testing.T) {
	cred, dir := accessSetup(t)
	secret, locked := filepath.Join(dir, "secret"), filepath.Join(dir, "locked")
	writeFile(t, filepath.Join(secret, "c.md"), "# Gamma\n\nIn a closed folder.\n")
	writeFile(t, filepath.Join(locked, "d.md"), "# Delta\n\nIn a folder that cannot be entered.\n")
	writeFile(t, filepath.Join(dir, "e.md"), "# Epsilon\n")
	chmod(t, secret, 0)
	chmod(t, locked, 0o644) // names can be read, files not reached
	c, n := serveAs(t, cred, dir)

	cat := catalogByPath(t, c)
	for _, folder := range []string{"secret", "locked"} {
		if d, ok := cat[folder]; !ok || d.FileType != "folder" || !strings.Contains(d.Unreadable, "permission denied") || !strings.Contains(d.Unreadable, "folder") {
			t.Errorf("%s: %+v (listed %v)", folder, d, ok)
		}
	}
	if len(cat) != 3 || cat["e.md"].Title != "Epsilon" {
		t.Errorf("catalog: %v", cat)
	}
	// The folder's entry reads as an unreadable document, with an empty
	// page list.
	var doc protocol.DPEDocument
	readJSON(t, c, "dpe://"+testHost+"/"+DocRef("secret")+"?depth=pages", &doc)
	if doc.Unreadable == "" || doc.Pages == nil || len(doc.Pages) != 0 {
		t.Errorf("Level 1 of the closed folder: %+v", doc)
	}

	n.reset()
	chmod(t, secret, 0o755)
	n.wait(t, "notifications/resources/list_changed", "", 20*time.Second)
	chmod(t, locked, 0o755)
	waitCatalog(t, c, n, "locked/d.md", "readable once the folder can be entered", func(d protocol.DPEDocumentSummary, ok bool) bool {
		return ok && d.Unreadable == "" && d.Title == "Delta"
	})
	cat = catalogByPath(t, c)
	if d := cat["secret/c.md"]; d.Title != "Gamma" || d.Unreadable != "" {
		t.Errorf("the opened folder's file: %+v", d)
	}
	if _, ok := cat["secret"]; ok || len(cat) != 3 {
		t.Errorf("catalog after opening the folders: %v", cat)
	}
}
