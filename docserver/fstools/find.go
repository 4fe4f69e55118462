package fstools

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
)

// Bounds of fs_find.
const (
	DefaultFindMaxResults = 200
	MaxFindMaxResults     = 5000
	// maxVisited bounds the entries one search looks at.
	maxVisited = 200_000
)

// FindMatch is one fs_find result.
type FindMatch struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
	Size *int64 `json:"size,omitempty"`
}

// FindResult is the result of fs_find.
type FindResult struct {
	Matches   []FindMatch `json:"matches"`
	Truncated bool        `json:"truncated"`
}

// FindParams are the arguments of fs_find.
type FindParams struct {
	Pattern    string
	Path       string
	MaxResults int
}

// Glob is a compiled fs_find pattern. A pattern without a slash matches
// entry names anywhere under the search path ("*.test.ts"); a pattern with
// a slash matches the path relative to the search path, segment by
// segment with path.Match, where a "**" segment matches any number of
// segments ("src/**/*.go").
type Glob struct {
	segs     []string
	nameOnly bool
}

// CompileGlob validates a pattern.
func CompileGlob(pattern string) (*Glob, error) {
	pattern = strings.TrimPrefix(strings.TrimSpace(pattern), "./")
	if pattern == "" {
		return nil, errors.New("pattern is empty")
	}
	if len(pattern) > 1000 {
		return nil, errors.New("pattern is longer than 1000 characters")
	}
	g := &Glob{segs: strings.Split(pattern, "/"), nameOnly: !strings.Contains(pattern, "/")}
	for _, s := range g.segs {
		if s == "**" {
			continue
		}
		if _, err := path.Match(s, ""); err != nil {
			return nil, fmt.Errorf("pattern %q: %w", pattern, err)
		}
	}
	return g, nil
}

// Match reports whether a path (relative to the search root) matches.
func (g *Glob) Match(rel string) bool {
	if g.nameOnly {
		ok, _ := path.Match(g.segs[0], path.Base(rel))
		return ok
	}
	return matchSegs(g.segs, strings.Split(rel, "/"))
}

// matchSegs matches path segments against pattern segments, where a "**"
// segment matches any number of path segments. It fills a table of
// "pat[i:] matches parts[j:]" from the end, so its work is
// O(len(pat) × len(parts)) segment matches whatever the number of "**":
// trying every split for every "**" (backtracking) is exponential in their
// number.
func matchSegs(pat, parts []string) bool {
	np, ns := len(pat), len(parts)
	w := ns + 1
	next := make([]bool, w) // row i+1 of the table
	cur := make([]bool, w)  // row i
	next[ns] = true         // the empty pattern matches only the empty path
	for i := np - 1; i >= 0; i-- {
		if pat[i] == "**" {
			cur[ns] = next[ns]
			for j := ns - 1; j >= 0; j-- {
				cur[j] = next[j] || cur[j+1]
			}
		} else {
			cur[ns] = false
			for j := ns - 1; j >= 0; j-- {
				cur[j] = false
				if next[j+1] {
					cur[j], _ = path.Match(pat[i], parts[j])
				}
			}
		}
		next, cur = cur, next
	}
	return next[0]
}

// Find walks the search path breadth first and returns the entries whose
// path matches, at most MaxResults of them (truncated tells there were
// more, or that the walk hit its bound of visited entries). Paths in the
// result are relative to the root.
func (f *FS) Find(ctx context.Context, p FindParams) (FindResult, error) {
	g, err := CompileGlob(p.Pattern)
	if err != nil {
		return FindResult{}, err
	}
	base, err := f.statDir(p.Path)
	if err != nil {
		return FindResult{}, err
	}
	if p.MaxResults <= 0 {
		p.MaxResults = DefaultFindMaxResults
	}
	p.MaxResults = min(p.MaxResults, MaxFindMaxResults)
	res := FindResult{Matches: []FindMatch{}}
	visited := 0
	queue := []string{base}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return FindResult{}, err
		}
		dir := queue[0]
		queue = queue[1:]
		entries, err := f.readDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if visited++; visited > maxVisited {
				res.Truncated = true
				return res, nil
			}
			rel := join(dir, e.Name())
			info, link, ok := f.entryInfo(rel, e)
			if !ok {
				continue
			}
			searchRel := strings.TrimPrefix(rel, base+"/")
			if base == "." {
				searchRel = rel
			}
			if g.Match(searchRel) {
				if len(res.Matches) >= p.MaxResults {
					res.Truncated = true
					return res, nil
				}
				m := FindMatch{Path: rel, Kind: "file"}
				if info.IsDir() {
					m.Kind = "dir"
				} else {
					size := info.Size()
					m.Size = &size
				}
				res.Matches = append(res.Matches, m)
			}
			if info.IsDir() && !link {
				queue = append(queue, rel)
			}
		}
	}
	return res, nil
}
