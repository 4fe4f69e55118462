// Package opt fills in the defaults of options structs, one way for every
// constructor: a field left at its zero value takes its default, and so
// does a number that cannot be meant (a negative size, bound or timeout).
package opt

import (
	"cmp"
	"log/slog"
)

// Default sets *v to def when *v is zero or negative (a number or a
// duration) or empty (a string).
func Default[T cmp.Ordered](v *T, def T) {
	var zero T
	if *v <= zero {
		*v = def
	}
}

// Logger returns l, or a logger that discards everything when l is nil.
func Logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
