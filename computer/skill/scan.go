package skill

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// maxSkillMD bounds the SKILL.md read while listing.
const maxSkillMD = 1 << 20

// maxPerDir bounds the SKILLs taken from one configured folder.
const maxPerDir = 1000

// Problem is a SKILL that was skipped, and why.
type Problem struct {
	Path string // the SKILL's folder or file
	Err  error
}

func (p Problem) Error() string { return fmt.Sprintf("skill %s: %v", p.Path, p.Err) }

// ScanDirs lists the SKILLs of the configured folders roots: each
// <root>/<name>/SKILL.md one level down whose <name> is kebab case and
// whose front matter parses and has a description. The name is the
// directory's (as the SDK's user source); when two roots hold the same
// name the first root wins. A root that does not exist lists nothing.
// Refs come sorted by name within a root, roots in order.
func ScanDirs(roots []string) ([]protocol.A2CSkillRef, []Problem) {
	var refs []protocol.A2CSkillRef
	var problems []Problem
	seen := map[string]bool{}
	for _, root := range roots {
		entries, err := os.ReadDir(root)
		if err != nil {
			if !os.IsNotExist(err) {
				problems = append(problems, Problem{Path: root, Err: err})
			}
			continue
		}
		n := 0
		for _, e := range entries { // ReadDir sorts by name
			dir := filepath.Join(root, e.Name())
			if !isDir(dir) || !isFile(filepath.Join(dir, File)) {
				continue
			}
			if n++; n > maxPerDir {
				problems = append(problems, Problem{Path: root, Err: fmt.Errorf("more than %d skills; the rest are not listed", maxPerDir)})
				break
			}
			ref, err := userRef(dir)
			if err != nil {
				problems = append(problems, Problem{Path: dir, Err: err})
				continue
			}
			if seen[ref.Name] {
				problems = append(problems, Problem{Path: dir, Err: fmt.Errorf("name %q is taken by an earlier folder", ref.Name)})
				continue
			}
			seen[ref.Name] = true
			refs = append(refs, ref)
		}
	}
	return refs, problems
}

// userRef reads the SKILL in folder dir.
func userRef(dir string) (protocol.A2CSkillRef, error) {
	name := filepath.Base(dir)
	if err := Kebab(name); err != nil {
		return protocol.A2CSkillRef{}, fmt.Errorf("folder name is not a SKILL name: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return protocol.A2CSkillRef{}, err
	}
	ref := protocol.A2CSkillRef{Name: name, Source: SourceUser, Path: abs}
	fm, err := readFrontMatter(filepath.Join(dir, File))
	if err != nil {
		return protocol.A2CSkillRef{}, err
	}
	return ref, FillRef(&ref, fm)
}

// readFrontMatter reads and parses the front matter of the SKILL.md at p.
func readFrontMatter(p string) (map[string]any, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", File, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSkillMD))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", File, err)
	}
	fm, err := ParseFrontMatter(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", File, err)
	}
	return fm, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// Equal reports whether two lists of refs are the same.
func Equal(a, b []protocol.A2CSkillRef) bool {
	return slices.EqualFunc(a, b, func(x, y protocol.A2CSkillRef) bool {
		return reflect.DeepEqual(x, y)
	})
}
