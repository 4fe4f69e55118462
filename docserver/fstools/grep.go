package fstools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"syscall"
	"unicode/utf8"
)

// Bounds of fs_grep.
const (
	DefaultGrepMaxFiles   = 500
	DefaultGrepMaxMatches = 100
	MaxGrepMaxFiles       = 20000
	MaxGrepMaxMatches     = 2000
	// GrepReadBytes is how much of each file is searched (the plan's "large
	// files: search the first block only").
	GrepReadBytes = 1 << 20
	// grepLineChars bounds the text of one match.
	grepLineChars = 200
)

// GrepMatch is one matching line.
type GrepMatch struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// GrepResult is the result of fs_grep.
type GrepResult struct {
	Matches      []GrepMatch `json:"matches"`
	Truncated    bool        `json:"truncated"`
	FilesScanned int         `json:"filesScanned"`
	// BinarySkipped counts files left out because they look binary.
	BinarySkipped int `json:"binarySkipped"`
}

// GrepParams are the arguments of fs_grep.
type GrepParams struct {
	Pattern    string
	Regex      bool
	Path       string
	Glob       string
	MaxFiles   int
	MaxMatches int
	IgnoreCase bool
}

// Grep searches the text files under the search path (those matching Glob,
// when given) for a literal string or an RE2 regular expression (linear
// time, so no pattern can hang it). Files that look binary (a NUL byte, or
// invalid UTF-8, in their first 8 KiB) are skipped; only the first MiB of
// a file is searched. The walk stops after MaxFiles files or MaxMatches
// matches, and truncated says so.
func (f *FS) Grep(ctx context.Context, p GrepParams) (GrepResult, error) {
	re, g, err := compileGrep(p)
	if err != nil {
		return GrepResult{}, err
	}
	base, err := f.statDir(p.Path)
	if err != nil {
		return GrepResult{}, err
	}
	if p.MaxFiles <= 0 {
		p.MaxFiles = DefaultGrepMaxFiles
	}
	if p.MaxMatches <= 0 {
		p.MaxMatches = DefaultGrepMaxMatches
	}
	p.MaxFiles = min(p.MaxFiles, MaxGrepMaxFiles)
	p.MaxMatches = min(p.MaxMatches, MaxGrepMaxMatches)
	res := GrepResult{Matches: []GrepMatch{}}
	buf := make([]byte, GrepReadBytes)
	queue := []string{base}
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		entries, err := f.readDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if err := ctx.Err(); err != nil {
				return GrepResult{}, err
			}
			rel := join(dir, e.Name())
			info, link, ok := f.entryInfo(rel, e)
			switch {
			case !ok:
			case info.IsDir():
				if !link {
					queue = append(queue, rel)
				}
			case info.Mode().IsRegular() && (g == nil || g.Match(searchRelative(base, rel))):
				if f.grepFile(rel, buf, re, &res, p) {
					return res, nil
				}
			}
		}
	}
	return res, nil
}

// compileGrep checks fs_grep's pattern and compiles it, with its glob.
func compileGrep(p GrepParams) (*regexp.Regexp, *Glob, error) {
	if p.Pattern == "" {
		return nil, nil, errors.New("pattern is empty")
	}
	if len(p.Pattern) > 1000 {
		return nil, nil, errors.New("pattern is longer than 1000 characters")
	}
	expr := p.Pattern
	if !p.Regex {
		expr = regexp.QuoteMeta(expr)
	}
	if p.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, nil, fmt.Errorf("pattern: %w", err)
	}
	var g *Glob
	if p.Glob != "" {
		if g, err = CompileGlob(p.Glob); err != nil {
			return nil, nil, err
		}
	}
	return re, g, nil
}

// searchRelative is rel's path relative to the search path base.
func searchRelative(base, rel string) string {
	if base == "." {
		return rel
	}
	return strings.TrimPrefix(rel, base+"/")
}

// grepFile searches one file (binary ones are counted and left out); it
// reports whether a bound was reached, which ends the search truncated.
func (f *FS) grepFile(rel string, buf []byte, re *regexp.Regexp, res *GrepResult, p GrepParams) bool {
	if res.FilesScanned >= p.MaxFiles {
		res.Truncated = true
		return true
	}
	n, err := f.readPrefix(rel, buf)
	if err != nil {
		return false
	}
	res.FilesScanned++
	data := buf[:n]
	if looksBinary(data) {
		res.BinarySkipped++
		return false
	}
	if grepLines(rel, data, re, res, p.MaxMatches) {
		res.Truncated = true
		return true
	}
	return false
}

// readPrefix reads up to len(buf) bytes of a file.
func (f *FS) readPrefix(rel string, buf []byte) (int, error) {
	// Non-blocking, and checked after the open: a file swapped for a FIFO
	// since the walk's stat must not block the search.
	file, err := f.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return 0, err
	}
	defer file.Close()
	if info, err := file.Stat(); err != nil || !info.Mode().IsRegular() {
		return 0, fmt.Errorf("%s is not a regular file", rel)
	}
	n, err := io.ReadFull(file, buf)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = nil
	}
	return n, err
}

// looksBinary reports a NUL byte or invalid UTF-8 in the first 8 KiB.
func looksBinary(data []byte) bool {
	head := data[:min(len(data), 8<<10)]
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	// Allow a multi-byte sequence cut at the end of the window.
	for i := 0; i < 3 && len(head) > 0 && !utf8.Valid(head); i++ {
		head = head[:len(head)-1]
	}
	return !utf8.Valid(head)
}

// grepLines adds the matching lines of data; it reports whether the match
// bound was reached.
func grepLines(rel string, data []byte, re *regexp.Regexp, res *GrepResult, maxMatches int) bool {
	line := 0
	for len(data) > 0 {
		line++
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		loc := re.FindIndex(l)
		if loc == nil {
			continue
		}
		if len(res.Matches) >= maxMatches {
			return true
		}
		res.Matches = append(res.Matches, GrepMatch{Path: rel, Line: line, Text: excerpt(l, loc[0])})
	}
	return false
}

// excerpt returns at most grepLineChars characters of a line around the
// match start, without control characters.
func excerpt(l []byte, at int) string {
	s := strings.TrimRight(string(l), "\r")
	if utf8.RuneCountInString(s) > grepLineChars {
		start := max(0, at-grepLineChars/4)
		for start > 0 && !utf8.RuneStart(s[start]) {
			start--
		}
		s = s[start:]
		r := []rune(s)
		if len(r) > grepLineChars {
			s = string(r[:grepLineChars]) + "…"
		}
		if start > 0 {
			s = "…" + s
		}
	}
	return strings.Map(func(r rune) rune {
		if r == '\t' {
			return ' '
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, s)
}
