package render

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// glamour highlights a code block with chroma's quick.Highlight, which
// looks its language up by name and, for a block without one (an indented
// block, HTML's <pre>) or with a name chroma does not know, matches the
// name against every lexer's file patterns before guessing from the code:
// ~5 ms a block, most of the time of a page of go_spec.html. nameCodeBlocks
// makes that choice once per block beforehand and names the lexer it
// chose, so the highlighting is the same and the lookup is a map read.

// nameCodeBlocks gives every code block of doc the name of the lexer
// quick.Highlight would choose for it; the names are appended to src,
// which is returned.
func nameCodeBlocks(doc gast.Node, src []byte) []byte {
	known := map[string]chroma.Lexer{}
	lookup := func(name string) chroma.Lexer {
		l, ok := known[name]
		if !ok {
			l = lexers.Get(name)
			known[name] = l
		}
		return l
	}
	var blocks []gast.Node
	_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		switch n.(type) {
		case *gast.FencedCodeBlock, *gast.CodeBlock:
			if entering {
				blocks = append(blocks, n)
			}
			return gast.WalkSkipChildren, nil
		}
		return gast.WalkContinue, nil
	})
	for _, n := range blocks {
		lang := ""
		if f, ok := n.(*gast.FencedCodeBlock); ok {
			lang = string(f.Language(src))
		}
		if lang != "" && lookup(lang) != nil {
			continue // found by name: quick
		}
		l := lexers.Analyse(codeOf(n, src))
		if l == nil {
			l = lookup("plaintext") // the same rules as chroma's fallback
		}
		name := lexerName(l, lookup)
		if name == "" {
			continue
		}
		start := len(src)
		src = append(src, name...)
		info := gast.NewTextSegment(text.NewSegment(start, len(src)))
		switch b := n.(type) {
		case *gast.FencedCodeBlock:
			b.Info = info
		case *gast.CodeBlock:
			f := gast.NewFencedCodeBlock(info)
			f.SetLines(b.Lines())
			b.Parent().ReplaceChild(b.Parent(), b, f)
		}
	}
	return src
}

// codeOf is a code block's text, as glamour reads it.
func codeOf(n gast.Node, src []byte) string {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(src))
	}
	return b.String()
}

// lexerName returns a name (without spaces, as a fence's info word) that
// looks l up, or "".
func lexerName(l chroma.Lexer, lookup func(string) chroma.Lexer) string {
	if l == nil {
		return ""
	}
	cfg := l.Config()
	for _, name := range append([]string{cfg.Name}, cfg.Aliases...) {
		if name != "" && !strings.ContainsAny(name, " \t") && lookup(name) == l {
			return name
		}
	}
	return ""
}
