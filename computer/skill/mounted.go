package skill

// The "mounted" mode (skill.md §3 A: the server and the Computer on one
// machine, the SKILL already on its file system). The SDK (a2c-smcp
// 0.4.2, computer/skills/staging.py) takes _meta.mount_dir from any
// server, requires only that it is a folder, and copies its tree into the
// staging folder following links (shutil.copytree, symlinks=False): a link
// in it to any file the Computer can read is copied in and then served.
// This Computer differs:
//
//   - it accepts the mode only from a stdio server. A local process can
//     read those files anyway; a remote (SSE / Streamable HTTP) server
//     would otherwise make the Computer serve any local folder it names.
//     From a remote server the SKILL is refused with that reason (a
//     Problem, logged, not listed);
//   - mount_dir must be an absolute path (as the protocol says) to an
//     existing folder holding a SKILL.md inside it (not a link out);
//   - the folder is served where it is (the protocol's "symlink or mount"),
//     not copied: its path is the resolved mount_dir, and Open keeps every
//     read inside it (a link out of it is a traversal, .skillenv
//     forbidden), as for the configured SKILL folders. An edit of a file
//     shows at once; the ref (description...) changes on the next staging.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// stageMounted reads the ref of the "mounted" SKILL root; seen holds the
// names staged before it.
func stageMounted(o Origin, root mcp.Resource, seen map[string]bool) (protocol.A2CSkillRef, error) {
	var ref protocol.A2CSkillRef
	if !o.Local {
		return ref, errors.New("mounted: refused from a remote server (only a stdio server, a local process, may name a local folder to serve)")
	}
	dir, fm, err := mountedDir(root.Meta.AdditionalFields["mount_dir"])
	if err != nil {
		return ref, fmt.Errorf("mounted: %w", err)
	}
	ref, err = mcpRef(o.BundleID, root, fm, seen)
	if err != nil {
		return ref, fmt.Errorf("mounted %s: %w", clip(dir), err)
	}
	ref.Path = dir
	return ref, nil
}

// mountedDir resolves mount_dir (links followed) and reads the front
// matter of the SKILL.md inside it.
func mountedDir(v any) (string, map[string]any, error) {
	p, _ := v.(string)
	if p == "" {
		return "", nil, errors.New("_meta.mount_dir is missing or not a string")
	}
	if !filepath.IsAbs(p) {
		return "", nil, fmt.Errorf("mount_dir %q is not an absolute path", clip(p))
	}
	dir, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", nil, fmt.Errorf("mount_dir: %w", err)
	}
	if !isDir(dir) {
		return "", nil, fmt.Errorf("mount_dir %q is not a folder", clip(p))
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return "", nil, fmt.Errorf("mount_dir: %w", err)
	}
	defer r.Close()
	f, err := r.Open(File) // os.Root refuses a link out of dir
	if err != nil {
		return "", nil, fmt.Errorf("%s of mount_dir %q: %w", File, clip(p), err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", nil, fmt.Errorf("%s of mount_dir %q is not a file", File, clip(p))
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSkillMD))
	if err != nil {
		return "", nil, fmt.Errorf("read %s: %w", File, err)
	}
	fm, err := ParseFrontMatter(string(data))
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", File, err)
	}
	return dir, fm, nil
}
