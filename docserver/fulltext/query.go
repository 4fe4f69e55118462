package fulltext

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/search/query"
)

// maxClauses bounds the clauses of one query.
const maxClauses = 16

// Boosts of the fields: a word in the document's title says more than one
// in a heading, which says more than one in the body. Bleve scales a
// disjunction's score by the share of its clauses that matched (a word
// only in the title gets a third), which the title's boost outweighs.
const (
	titleBoost   = 10
	headingBoost = 3
	bodyBoost    = 1
)

// ErrNoWords is the error of a query without a word to look for (only
// punctuation, say): the literal search finds such text.
var ErrNoWords = errors.New("the query has no word to search for (search literally for punctuation)")

type clauseKind int

const (
	termClause clauseKind = iota
	prefixClause
	phraseClause
)

// clause is one part of a query that a page must hold.
type clause struct {
	kind  clauseKind
	terms []string // the term; the prefix; the phrase's terms in order
}

// Query is a parsed search: every clause must occur on a page (in its
// title, headings or text). Words are matched whole and without regard to
// case ("read" does not find "ReadFile"); `read*` finds the words that
// start with "read"; "a quoted phrase" finds those words in that order,
// as does a word that splits into several (`os.ReadFile`, `文档`).
type Query struct {
	clauses []clause
	src     string // as parsed (a holder of a shared index parses it again)
}

// ParseQuery parses a query (text already in the form the index holds;
// see Words).
func ParseQuery(s string) (Query, error) {
	q := Query{src: s}
	add := func(c clause) {
		if len(q.clauses) < maxClauses {
			q.clauses = append(q.clauses, c)
		}
	}
	for s != "" {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		if s == "" {
			break
		}
		if s[0] == '"' {
			phrase, rest, _ := strings.Cut(s[1:], `"`)
			s = rest
			if ts := terms(phrase); len(ts) > 0 {
				add(phraseOf(ts))
			}
			continue
		}
		end := strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '"' })
		if end < 0 {
			end = len(s)
		}
		word := s[:end]
		s = s[end:]
		prefix := strings.HasSuffix(word, "*")
		ts := terms(strings.TrimRight(word, "*"))
		switch {
		case len(ts) == 0:
		case prefix && len(ts) == 1:
			add(clause{kind: prefixClause, terms: ts})
		case prefix:
			add(phraseOf(ts[:len(ts)-1]))
			add(clause{kind: prefixClause, terms: ts[len(ts)-1:]})
		default:
			add(phraseOf(ts))
		}
	}
	if len(q.clauses) == 0 {
		return Query{}, ErrNoWords
	}
	return q, nil
}

func terms(s string) []string {
	var out []string
	Words(s, func(w Word) { out = append(out, w.Term) })
	return out
}

// phraseOf is a term clause for one term, a phrase for more.
func phraseOf(ts []string) clause {
	if len(ts) == 1 {
		return clause{kind: termClause, terms: ts}
	}
	return clause{kind: phraseClause, terms: ts}
}

// byDocument reports whether the query's pages are ranked with their
// documents (see byDocument): not when a clause is a prefix of one or two
// letters, which finds another word on each page of a long document, so
// that how many of them match says nothing of its subject.
func (q Query) byDocument() bool {
	for _, c := range q.clauses {
		if c.kind == prefixClause && utf8.RuneCountInString(c.terms[0]) <= 2 {
			return false
		}
	}
	return true
}

// Clauses counts the query's clauses.
func (q Query) Clauses() int { return len(q.clauses) }

// bleveQuery is the query over the index's fields: each clause in the
// title, a heading or the body (boosted in that order), all clauses. A
// prefix of up to PrefixRunes characters is found in the prefix fields
// unless expand asks for every word that starts with it (the slow way,
// for tests to compare with).
func (q Query) bleveQuery(expand bool) query.Query {
	all := make([]query.Query, 0, len(q.clauses))
	for _, c := range q.clauses {
		var fields []query.Query
		for _, f := range []struct {
			name  string
			boost float64
		}{{fieldTitle, titleBoost}, {fieldHeadings, headingBoost}, {fieldBody, bodyBoost}} {
			var cq interface {
				query.Query
				SetBoost(float64)
			}
			switch {
			case c.kind == termClause:
				t := query.NewTermQuery(c.terms[0])
				t.SetField(f.name)
				cq = t
			case c.kind == prefixClause && !expand && indexedPrefix(utf8.RuneCountInString(c.terms[0])):
				// One term of the prefix field: the pages of every
				// word that starts with it, ranked by how many such
				// words occur there.
				t := query.NewTermQuery(c.terms[0])
				t.SetField(prefixField(f.name))
				cq = t
			case c.kind == prefixClause && !expand && utf8.RuneCountInString(c.terms[0]) < PrefixRunes:
				// A 3-character prefix: the few prefix terms one
				// character longer, and the word of that length itself.
				p := query.NewPrefixQuery(c.terms[0])
				p.SetField(prefixField(f.name))
				cq = p
			case c.kind == prefixClause:
				p := query.NewPrefixQuery(c.terms[0])
				p.SetField(f.name)
				cq = p
			default:
				// The phrase's words, in any order (the index holds no
				// positions): the caller checks the order.
				words := make([]query.Query, len(c.terms))
				for i, t := range c.terms {
					tq := query.NewTermQuery(t)
					tq.SetField(f.name)
					words[i] = tq
				}
				cq = query.NewConjunctionQuery(words)
			}
			cq.SetBoost(f.boost)
			fields = append(fields, cq)
		}
		all = append(all, query.NewDisjunctionQuery(fields))
	}
	return query.NewConjunctionQuery(all)
}

// Span is one occurrence of a clause in a text: its byte offsets and the
// clause's number.
type Span struct {
	Start, End int
	Clause     int
}

// Spans returns the occurrences of the query's clauses in text, in order.
func (q Query) Spans(text string) []Span {
	var words []Word
	Words(text, func(w Word) { words = append(words, w) })
	var out []Span
	for i := range words {
		for ci, c := range q.clauses {
			if n := c.matchAt(words, i); n > 0 {
				out = append(out, Span{Start: words[i].Start, End: words[i+n-1].End, Clause: ci})
			}
		}
	}
	return out
}

// matchAt returns how many words from words[i] the clause matches (0:
// none).
func (c clause) matchAt(words []Word, i int) int {
	switch c.kind {
	case termClause:
		if words[i].Term == c.terms[0] {
			return 1
		}
	case prefixClause:
		if strings.HasPrefix(words[i].Term, c.terms[0]) {
			return 1
		}
	case phraseClause:
		if i+len(c.terms) > len(words) {
			return 0
		}
		for j, t := range c.terms {
			if words[i+j].Term != t {
				return 0
			}
		}
		return len(c.terms)
	}
	return 0
}

// Matches reports whether every clause occurs in one of texts: what the
// index answers for a page, decided on its text.
func (q Query) Matches(texts ...string) bool {
	found := make([]bool, len(q.clauses))
	left := len(q.clauses)
	for _, t := range texts {
		for _, s := range q.Spans(t) {
			if !found[s.Clause] {
				found[s.Clause] = true
				left--
			}
		}
		if left == 0 {
			return true
		}
	}
	return left == 0
}

// Needles returns the terms a text must hold, as substrings of its lower
// case form, for the query to match it: every term of every clause (a
// prefix clause's prefix). A text without one of them cannot match, which
// lets a scan pass over a file without parsing it.
func (q Query) Needles() []string {
	var out []string
	for _, c := range q.clauses {
		out = append(out, c.terms...)
	}
	return out
}
