package skill

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/computer/mcpclient"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// URIPrefix starts every SKILL resource of an MCP server.
const URIPrefix = "skill://"

// Bounds of the staging of one MCP server's SKILLs.
const (
	maxListPages    = 1000     // resources/list pages (the SDK's guard against an endless cursor)
	maxSkillFiles   = 500      // files of one SKILL
	maxSkillBytes   = 32 << 20 // bytes of one SKILL
	maxServerSkills = 200      // SKILLs of one server
)

// Lister is what staging needs of an MCP server connection.
type Lister interface {
	ListResources(ctx context.Context, cursor string) ([]mcp.Resource, string, error)
	Read(ctx context.Context, uri string) (*mcp.ReadResourceResult, error)
}

// Origin is the MCP server whose SKILLs are staged: what the modes
// "mounted" and "archive" need to know of where it runs.
type Origin struct {
	BundleID string
	// Local says the server is a process on this machine (stdio); only
	// then is a "mounted" SKILL accepted.
	Local bool
	// URL is a remote server's address: an http(s) archive_uri it names
	// must have the same origin (scheme, host and port).
	URL string
	// HTTP fetches http(s) archives (nil: a client of this package's own).
	HTTP *http.Client
}

// StageMCP stages the SKILLs the MCP server o serves as skill://
// resources and returns their refs. As in the SDK, a SKILL is a
// skill://host/<leaf> resource with a _meta.source, in one of three modes:
// "resources" (the resources under it, skill://host/<leaf>/<rel>, are its
// files), "archive" (a zip or tar.gz named by _meta.archive_uri) and
// "mounted" (a local folder, _meta.mount_dir, only from a stdio server:
// served where it is, not copied). The first two are written into
// home/<bundleID>/<skill>/ through a temporary folder, renamed once
// complete. Its name is mcp:<bundle_id>:<front matter name>. A SKILL that
// fails is a Problem and is left out; the error is for the listing itself.
func StageMCP(ctx context.Context, l Lister, o Origin, home string) ([]protocol.A2CSkillRef, []Problem, error) {
	all, err := listSkillResources(ctx, l)
	if err != nil {
		return nil, nil, err
	}
	dir := filepath.Join(home, o.BundleID)
	if err := os.RemoveAll(dir); err != nil {
		return nil, nil, fmt.Errorf("clear staging %s: %w", dir, err)
	}
	var refs []protocol.A2CSkillRef
	var problems []Problem
	seen := map[string]bool{}
	for _, root := range roots(all) {
		if len(refs) == maxServerSkills {
			problems = append(problems, Problem{Path: root.URI, Err: fmt.Errorf("more than %d skills; the rest are not staged", maxServerSkills)})
			break
		}
		ref, err := stageOne(ctx, l, o, dir, root, all, seen)
		if err != nil {
			problems = append(problems, Problem{Path: root.URI, Err: err})
			continue
		}
		seen[ref.Name] = true
		refs = append(refs, ref)
	}
	return refs, problems, nil
}

// listSkillResources pages the server's resources/list, keeping skill://.
func listSkillResources(ctx context.Context, l Lister) ([]mcp.Resource, error) {
	var out []mcp.Resource
	cursor := ""
	for range maxListPages {
		page, next, err := l.ListResources(ctx, cursor)
		if err != nil {
			return nil, fmt.Errorf("list skill resources: %w", err)
		}
		for _, r := range page {
			if strings.HasPrefix(r.URI, URIPrefix) {
				out = append(out, r)
			}
		}
		if next == "" || next == cursor {
			return out, nil
		}
		cursor = next
	}
	return out, fmt.Errorf("list skill resources: more than %d pages", maxListPages)
}

// metaSource is a resource's _meta.source ("" when absent).
func metaSource(r mcp.Resource) string {
	if r.Meta == nil {
		return ""
	}
	s, _ := r.Meta.AdditionalFields["source"].(string)
	return s
}

// roots returns the SKILL roots among all: resources with a _meta.source
// that no other root contains (a nested declaration is the provider's
// mistake; the SDK skips it too).
func roots(all []mcp.Resource) []mcp.Resource {
	var cands []mcp.Resource
	for _, r := range all {
		if metaSource(r) != "" {
			cands = append(cands, r)
		}
	}
	var out []mcp.Resource
	for _, r := range cands {
		covered := false
		for _, o := range cands {
			if o.URI != r.URI && leaf(o.URI) != "" && strings.HasPrefix(r.URI, o.URI+"/") {
				covered = true
			}
		}
		if !covered {
			out = append(out, r)
		}
	}
	return out
}

// uriPath is the path of a skill:// URI after its host.
func uriPath(uri string) string {
	_, p, _ := strings.Cut(strings.TrimPrefix(uri, URIPrefix), "/")
	return p
}

// leaf is the first path segment of a SKILL root URI.
func leaf(uri string) string {
	first, _, _ := strings.Cut(uriPath(uri), "/")
	return first
}

// stageOne stages the SKILL root and reads its ref; seen holds the names
// staged before it. The files of a "resources" or "archive" SKILL go into
// a temporary folder of dir, renamed dir/<front matter name> only once the
// SKILL is whole and its front matter good: a failure leaves nothing.
func stageOne(ctx context.Context, l Lister, o Origin, dir string, root mcp.Resource, all []mcp.Resource, seen map[string]bool) (protocol.A2CSkillRef, error) {
	var ref protocol.A2CSkillRef
	if safeSegment(leaf(root.URI)) != nil {
		return ref, fmt.Errorf("root URI has no usable first path segment")
	}
	mode := metaSource(root)
	if mode == "mounted" {
		return stageMounted(o, root, seen)
	}
	if mode != "resources" && mode != "archive" {
		return ref, fmt.Errorf("_meta.source %q is not a staging mode (want resources, archive or mounted)", clip(mode))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ref, fmt.Errorf("staging folder: %w", err)
	}
	tmp, err := os.MkdirTemp(dir, ".stage-") // a dot: never a SKILL name
	if err != nil {
		return ref, fmt.Errorf("staging folder: %w", err)
	}
	defer os.RemoveAll(tmp) // gone by then when the SKILL was staged
	if mode == "archive" {
		err = stageArchive(ctx, l, o, root, tmp)
	} else {
		err = writeFiles(ctx, l, root.URI, all, tmp)
	}
	if err != nil {
		return ref, err
	}
	fm, err := readFrontMatter(filepath.Join(tmp, File))
	if err != nil {
		return ref, err
	}
	ref, err = mcpRef(o.BundleID, root, fm, seen)
	if err != nil {
		return ref, err
	}
	final := filepath.Join(dir, fm["name"].(string)) // the folder is named after the skill
	if err := os.RemoveAll(final); err != nil {
		return ref, fmt.Errorf("rename staged folder: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return ref, fmt.Errorf("rename staged folder: %w", err)
	}
	ref.Path = final
	return ref, nil
}

// mcpRef is the ref of the SKILL root with front matter fm, its Path
// unset; a name in seen is refused.
func mcpRef(bundleID string, root mcp.Resource, fm map[string]any, seen map[string]bool) (protocol.A2CSkillRef, error) {
	var ref protocol.A2CSkillRef
	if err := checkFMName(fm); err != nil {
		return ref, err
	}
	name := MCPName(bundleID, fm["name"].(string))
	if seen[name] {
		return ref, fmt.Errorf("name %q is taken by an earlier skill of this server", name)
	}
	ref = protocol.A2CSkillRef{Name: name, Source: "mcp:" + bundleID, URI: root.URI}
	if v, ok := root.Meta.AdditionalFields["version"]; ok && v != nil {
		ref.Version = fmt.Sprint(v)
	}
	if err := FillRef(&ref, fm); err != nil {
		return protocol.A2CSkillRef{}, err
	}
	return ref, nil
}

// safeSegment accepts a leaf that is a safe single path segment.
func safeSegment(lf string) error {
	if lf == "" || lf == "." || lf == ".." || strings.ContainsAny(lf, `\:`) {
		return errors.New("bad segment")
	}
	return nil
}

// checkFMName requires a kebab-case name in the front matter.
func checkFMName(fm map[string]any) error {
	n, ok := fm["name"].(string)
	if !ok || n == "" {
		return errors.New("front matter has no name")
	}
	if err := Kebab(n); err != nil {
		return fmt.Errorf("front matter name: %w", err)
	}
	return nil
}

// writeFiles reads every resource under rootURI and writes it below dest,
// bounded in files and bytes; a path that would leave dest is refused.
func writeFiles(ctx context.Context, l Lister, rootURI string, all []mcp.Resource, dest string) error {
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return fmt.Errorf("staging folder: %w", err)
	}
	prefix := rootURI + "/"
	files, total := 0, 0
	for _, r := range all {
		if !strings.HasPrefix(r.URI, prefix) {
			continue
		}
		rel := strings.TrimPrefix(r.URI, prefix)
		clean, err := lexical(rel)
		if err != nil || forbidden(path.Base(clean)) {
			return fmt.Errorf("file %q: not a safe path inside the skill", clip(rel))
		}
		if files++; files > maxSkillFiles {
			return fmt.Errorf("more than %d files", maxSkillFiles)
		}
		data, err := readAll(ctx, l, r.URI)
		if err != nil {
			return err
		}
		if total += len(data); total > maxSkillBytes {
			return fmt.Errorf("more than %d bytes", maxSkillBytes)
		}
		target := filepath.Join(dest, filepath.FromSlash(clean))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return fmt.Errorf("file %q: %w", clip(rel), err)
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return fmt.Errorf("file %q: %w", clip(rel), err)
		}
	}
	if files == 0 {
		return fmt.Errorf("no resources under %s", clip(rootURI))
	}
	return nil
}

// readAll reads one resource's contents as bytes (text as UTF-8, blobs
// decoded from base64).
func readAll(ctx context.Context, l Lister, uri string) ([]byte, error) {
	res, err := l.Read(ctx, uri)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", clip(uri), err)
	}
	var out []byte
	for _, c := range mcpclient.Contents(res) {
		if c.Blob == "" {
			out = append(out, c.Text...)
			continue
		}
		b, err := base64.StdEncoding.DecodeString(c.Blob)
		if err != nil {
			return nil, fmt.Errorf("read %s: blob is not base64: %w", clip(uri), err)
		}
		out = append(out, b...)
	}
	return out, nil
}
