package fulltext

import (
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/document"
	index "github.com/blevesearch/bleve_index_api"
)

// The index documents are built here rather than by the mapping: the
// mapping walks a map of values by reflection and analyzes each text
// field on its own, so a page's text was split into words twice (for its
// words and for their prefixes), each word a Token allocated only to be
// counted. A page's text is split once (split), straight into the counts
// the index keeps. The fields' options are those newMapping declares.

// Indexing options of the fields (see newMapping).
const (
	optIndexed = index.IndexField
	optStored  = index.StoreField
)

// pageDoc is the index document of page p of d, written by batch seq.
func pageDoc(d *Doc, p int, seq uint64) *document.Document {
	doc := document.NewDocument(pageID(d.Rel, p))
	doc.AddField(document.NewTextFieldCustom(fieldKind, nil, []byte("page"), optIndexed, nil))
	doc.AddField(document.NewTextFieldCustom(fieldFileType, nil, []byte(strings.ToLower(d.FileType)), optIndexed, nil))
	doc.AddField(document.NewNumericFieldWithIndexingOptions(fieldSeq, nil, float64(seq), optIndexed))
	if p == 0 {
		addText(doc, fieldTitle, d.Title)
	}
	addText(doc, fieldHeadings, d.Pages[p].Headings)
	addText(doc, fieldBody, d.Pages[p].Body)
	return doc
}

// fileDoc is the index document of a file's record.
func fileDoc(rel string, r Record) *document.Document {
	doc := document.NewDocument(fileID(rel))
	doc.AddField(document.NewTextFieldCustom(fieldKind, nil, []byte("file"), optIndexed, nil))
	doc.AddField(document.NewTextFieldCustom(fieldRel, nil, []byte(rel), optStored, nil))
	doc.AddField(document.NewTextFieldCustom(fieldVersion, nil, []byte(r.Version), optStored, nil))
	doc.AddField(document.NewNumericFieldWithIndexingOptions(fieldPages, nil, float64(r.Pages), optStored))
	doc.AddField(document.NewNumericFieldWithIndexingOptions(fieldIndexed, nil, float64(r.Indexed), optStored))
	doc.AddField(document.NewTextFieldCustom(fieldUnreadable, nil, []byte(r.Unreadable), optStored, nil))
	doc.AddField(document.NewNumericFieldWithIndexingOptions(fieldSeq, nil, float64(r.Seq), optIndexed|optStored))
	return doc
}

// parsePageID is the file and page of a page document's id (pageID).
func parsePageID(id string) (rel string, page int, ok bool) {
	rest, ok := strings.CutPrefix(id, "p:")
	if !ok {
		return "", 0, false
	}
	n, rel, ok := strings.Cut(rest, ":")
	if !ok {
		return "", 0, false
	}
	page, err := strconv.Atoi(n)
	return rel, page, err == nil
}

// addText adds a text field and the field of its words' prefixes, both
// counted from one split of text.
func addText(doc *document.Document, name, text string) {
	if text == "" {
		return
	}
	s := &split{text: text}
	doc.AddField(&wordsField{name: name, s: s})
	doc.AddField(&wordsField{name: prefixField(name), s: s, prefixes: true})
}

// split is a text split into words once, for both of its fields.
type split struct {
	text string
	once sync.Once
	// words counts the words; terms counts each term's occurrences.
	words int
	terms map[string]int
}

func (s *split) do() {
	s.once.Do(func() {
		s.terms = make(map[string]int, len(s.text)/16)
		Words(s.text, func(w Word) {
			s.words++
			s.terms[w.Term]++
		})
	})
}

// wordsField is a text field whose terms are its text's words (Words),
// or, with prefixes, the leading 1 to PrefixRunes characters of each
// distinct word (see eachPrefix), as wordAnalyzer gives them. It is indexed, not stored.
type wordsField struct {
	name     string
	s        *split
	prefixes bool
	length   int
	freqs    index.TokenFrequencies
}

func (f *wordsField) Name() string                        { return f.name }
func (f *wordsField) ArrayPositions() []uint64            { return nil }
func (f *wordsField) Options() index.FieldIndexingOptions { return optIndexed }
func (f *wordsField) Value() []byte                       { return nil }
func (f *wordsField) NumPlainTextBytes() uint64           { return uint64(len(f.s.text)) }
func (f *wordsField) EncodedFieldType() byte              { return 't' }
func (f *wordsField) AnalyzedLength() int                 { return f.length }

func (f *wordsField) AnalyzedTokenFrequencies() index.TokenFrequencies { return f.freqs }

// Size is the memory the field holds, for Bleve's accounting.
func (f *wordsField) Size() int {
	n := 64 + len(f.name)
	if f.freqs != nil {
		n += f.freqs.Size()
	}
	return n
}

// Analyze counts the field's terms.
func (f *wordsField) Analyze() {
	f.s.do()
	if !f.prefixes {
		f.length = f.s.words
		f.freqs = make(index.TokenFrequencies, len(f.s.terms))
		for t, n := range f.s.terms {
			tf := &index.TokenFreq{Term: []byte(t)}
			tf.SetFrequency(n)
			f.freqs[t] = tf
		}
		return
	}
	f.freqs = make(index.TokenFrequencies, len(f.s.terms))
	for t := range f.s.terms {
		eachPrefix(t, func(p string) {
			f.length++
			if tf, ok := f.freqs[p]; ok {
				tf.SetFrequency(tf.Frequency() + 1)
				return
			}
			tf := &index.TokenFreq{Term: []byte(p)}
			tf.SetFrequency(1)
			f.freqs[p] = tf
		})
	}
}

// eachPrefix calls fn with the terms term gives the prefix fields: its
// leading 1, 2 and PrefixRunes (4) characters, and all of it when it is 3
// characters long. 3-character prefixes are left out, a third of the
// prefix fields' postings: such a prefix is found as the few prefix terms
// one character longer that start with it, or the word itself
// (Query.bleveQuery).
func eachPrefix(term string, fn func(p string)) {
	end, n := 0, 0
	for end < len(term) && n < PrefixRunes {
		_, size := utf8.DecodeRuneInString(term[end:])
		end += size
		n++
		if indexedPrefix(n) {
			fn(term[:end])
		}
	}
	if end == len(term) && !indexedPrefix(n) {
		fn(term)
	}
}

// indexedPrefix reports whether a prefix of n characters is a term of
// the prefix fields (see eachPrefix); a 3-character one is found by the
// terms that start with it.
func indexedPrefix(n int) bool { return n == 1 || n == 2 || n == PrefixRunes }
