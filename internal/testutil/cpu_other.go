//go:build !unix

package testutil

import "time"

// ProcessCPU is 0 here (no getrusage): benchmarks report no CPU figures.
func ProcessCPU() time.Duration { return 0 }
