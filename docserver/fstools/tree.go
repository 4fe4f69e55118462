package fstools

import (
	"context"
)

// Defaults of fs_tree.
const (
	DefaultTreeDepth      = 3
	DefaultTreeMaxEntries = 500
	MaxTreeMaxEntries     = 10000
)

// TreeNode is a node of an fs_tree result. Directories have Count (direct
// children) and either Children or Collapsed; files have Type and Size.
type TreeNode struct {
	Hash      string               `json:"hash"`
	Kind      string               `json:"kind"` // "dir" or "file"
	Count     *int                 `json:"count,omitempty"`
	Collapsed bool                 `json:"collapsed,omitempty"`
	Link      bool                 `json:"link,omitempty"` // a symbolic link (to a directory: never expanded)
	Children  map[string]*TreeNode `json:"children,omitempty"`
	Type      string               `json:"type,omitempty"`
	Size      *int64               `json:"size,omitempty"`
	// Truncated is set on the root only: some directory was collapsed
	// because the entry budget ran out.
	Truncated *bool `json:"truncated,omitempty"`

	rel   string
	depth int
}

// TreeParams are the arguments of fs_tree. Depth < 0 means unlimited.
type TreeParams struct {
	Path       string
	Depth      int
	MaxEntries int
}

// Tree runs the fs-tools v2 BFS with an entry budget: a directory is
// expanded only when all its entries fit the remaining budget; when one
// does not, it and every directory still waiting in the queue are marked
// collapsed, and the walk stops, so no directory is ever partly expanded.
// Directories at the depth limit are collapsed without spending budget.
func (f *FS) Tree(ctx context.Context, p TreeParams) (*TreeNode, error) {
	rel, err := f.statDir(p.Path)
	if err != nil {
		return nil, err
	}
	if p.MaxEntries <= 0 {
		p.MaxEntries = DefaultTreeMaxEntries
	}
	p.MaxEntries = min(p.MaxEntries, MaxTreeMaxEntries)
	info, err := f.root.Stat(rel)
	if err != nil {
		return nil, rootErr(p.Path, err)
	}
	root := &TreeNode{Hash: nodeHash(rel, info), Kind: "dir", rel: rel}
	truncated := false
	budget := p.MaxEntries
	queue := []*TreeNode{root}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		node := queue[0]
		queue = queue[1:]
		entries, err := f.readDir(node.rel)
		if err != nil {
			zero := 0
			node.Count, node.Collapsed = &zero, true
			continue
		}
		n := len(entries)
		node.Count = &n
		if p.Depth >= 0 && node.depth >= p.Depth {
			node.Collapsed = true
			continue
		}
		if n > budget {
			node.Collapsed = true
			truncated = true
			for _, rest := range queue {
				rest.Collapsed = true
				if es, err := f.readDir(rest.rel); err == nil {
					c := len(es)
					rest.Count = &c
				}
			}
			break
		}
		budget -= n
		node.Children = make(map[string]*TreeNode, n)
		for _, e := range entries {
			childRel := join(node.rel, e.Name())
			info, link, ok := f.entryInfo(childRel, e)
			if !ok {
				continue // a link that leaves the root or dangles
			}
			if info.IsDir() {
				child := &TreeNode{Hash: nodeHash(childRel, info), Kind: "dir", Link: link, rel: childRel, depth: node.depth + 1}
				node.Children[e.Name()] = child
				if link {
					child.Collapsed = true // never follow directory links: no cycles
					if es, err := f.readDir(childRel); err == nil {
						c := len(es)
						child.Count = &c
					}
					continue
				}
				queue = append(queue, child)
				continue
			}
			size := info.Size()
			node.Children[e.Name()] = &TreeNode{Hash: nodeHash(childRel, info), Kind: "file", Link: link,
				Type: contentType(e.Name()), Size: &size}
		}
	}
	root.Truncated = &truncated
	return root, nil
}
