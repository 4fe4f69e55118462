package extract

import "golang.org/x/text/unicode/norm"

// SearchForm is the form of text used for search, keywords and
// summaries: Unicode compatibility normalization (NFKC), which turns the
// ligatures of typeset documents ("ﬁ", "ﬂ"), full-width forms and the
// like into the plain characters a user types, so that a search for
// "file" finds a page that shows "ﬁle". Element text keeps the original
// characters for display.
func SearchForm(s string) string { return norm.NFKC.String(s) }

// searchForms applies SearchForm to each keyword, dropping duplicates the
// normalization creates.
func searchForms(ks []string) []string {
	if len(ks) == 0 {
		return ks
	}
	out := ks[:0:0]
	seen := map[string]bool{}
	for _, k := range ks {
		k = SearchForm(k)
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}
