// Package wordfreq counts word frequencies in text. It is a small sample
// program for the document server's corpus.
package wordfreq

import (
	"sort"
	"strings"
)

// Count returns how often each lower-cased word occurs in text.
func Count(text string) map[string]int {
	m := map[string]int{}
	for _, w := range strings.Fields(strings.ToLower(text)) {
		m[w]++
	}
	return m
}

// Top returns the n most frequent words, most frequent first.
func Top(m map[string]int, n int) []string {
	words := make([]string, 0, len(m))
	for w := range m {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		if m[words[i]] != m[words[j]] {
			return m[words[i]] > m[words[j]]
		}
		return words[i] < words[j]
	})
	if len(words) > n {
		words = words[:n]
	}
	return words
}
