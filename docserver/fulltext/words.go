package fulltext

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// MaxWordBytes bounds the term of one word: a longer run of letters (a
// hostile document's megabyte "word", a base64 blob) is indexed by its
// first MaxWordBytes bytes, and so is a query word, so it is still found.
const MaxWordBytes = 128

// analyzerName names the analyzer of every text field.
const analyzerName = "smcp-words"

// prefixAnalyzerName names the analyzer of the prefix fields (see
// PrefixRunes).
const prefixAnalyzerName = "smcp-prefixes"

// PrefixRunes is the longest prefix indexed on its own: each word is also
// indexed by its first 1, 2 and PrefixRunes characters (eachPrefix), so a
// search for a prefix that short is one term or a few, not the thousands
// of words that start with it ("m*", "te*", "test*" over Go's source:
// 7,708, 10,517 and 10,069 words).
const PrefixRunes = 4

func init() {
	// Bleve finds analyzers by name (the name is stored in the index's
	// mapping), so the analyzer is registered once, at start-up.
	if err := registry.RegisterAnalyzer(analyzerName, func(map[string]any, *registry.Cache) (analysis.Analyzer, error) {
		return wordAnalyzer{}, nil
	}); err != nil {
		panic(err)
	}
	if err := registry.RegisterAnalyzer(prefixAnalyzerName, func(map[string]any, *registry.Cache) (analysis.Analyzer, error) {
		return wordAnalyzer{prefixes: true}, nil
	}); err != nil {
		panic(err)
	}
}

// Word is one word of a text: its byte offsets and its term (lower case,
// at most MaxWordBytes).
type Word struct {
	Start, End int
	Term       string
}

// Words splits text into words, the unit the index finds: a run of
// letters, digits and combining marks ("ReadFile", "example" and "test"
// of "example_test", "3"), or a single Han, Hiragana or Katakana
// character, since those scripts do not separate words (a phrase of
// them finds a word). Everything else separates words. fn gets each
// word in order.
func Words(text string, fn func(w Word)) {
	start := -1
	flush := func(end int) {
		if start >= 0 {
			fn(Word{Start: start, End: end, Term: term(text[start:end])})
			start = -1
		}
	}
	for i, r := range text {
		switch {
		case single(r):
			flush(i)
			end := i + utf8.RuneLen(r)
			if r == utf8.RuneError {
				end = i + 1
			}
			fn(Word{Start: i, End: end, Term: string(r)})
		case unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
			if start < 0 {
				start = i
			}
		default:
			flush(i)
		}
	}
	flush(len(text))
}

// single reports whether r is a word by itself.
func single(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r))
}

// term is the indexed form of a word: lower case, cut to MaxWordBytes on
// a character boundary.
func term(w string) string {
	if len(w) > MaxWordBytes {
		cut := MaxWordBytes
		for cut > 0 && !utf8.RuneStart(w[cut]) {
			cut--
		}
		w = w[:cut]
	}
	return strings.ToLower(w)
}

// wordAnalyzer is Words as a Bleve analyzer, the one the mapping names
// for the text fields (the documents count their terms themselves, the
// same way: see wordsField). With prefixes, it gives the prefixes of each
// distinct word instead (eachPrefix): "marshal" as "m", "ma" and "mars",
// "map" as "m", "ma" and "map", for the prefix fields. A prefix's frequency on a page is then the number of
// different words that start with it, as a query of all those words
// would count them, at a fraction of the tokens of every occurrence.
type wordAnalyzer struct{ prefixes bool }

func (a wordAnalyzer) Analyze(input []byte) analysis.TokenStream {
	var out analysis.TokenStream
	var seen map[string]bool
	if a.prefixes {
		seen = map[string]bool{}
	}
	pos := 0
	Words(string(input), func(w Word) {
		pos++
		if a.prefixes {
			if seen[w.Term] {
				return
			}
			seen[w.Term] = true
		}
		typ := analysis.AlphaNumeric
		if r, _ := utf8.DecodeRuneInString(w.Term); single(r) {
			typ = analysis.Ideographic
		}
		add := func(t string) {
			out = append(out, &analysis.Token{Start: w.Start, End: w.End, Term: []byte(t), Position: pos, Type: typ})
		}
		if a.prefixes {
			eachPrefix(w.Term, add)
		} else {
			add(w.Term)
		}
	})
	return out
}
