package testutil

import (
	"flag"
	"strconv"
)

// ParallelWaits lets up to n of a package's parallel tests run at once
// (the -test.parallel flag, which defaults to GOMAXPROCS) unless the flag
// was given. Call it from TestMain, before m.Run, in a package whose
// parallel tests spend their time waiting (leases, timeouts, child
// processes) rather than computing: on a 2-core machine two at a time
// leave the cores idle while the others queue.
func ParallelWaits(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	parallelWaits(flag.CommandLine, n)
}

func parallelWaits(fs *flag.FlagSet, n int) {
	f := fs.Lookup("test.parallel")
	if f == nil {
		return
	}
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if cur, err := strconv.Atoi(f.Value.String()); err == nil && !given && cur < n {
		_ = f.Value.Set(strconv.Itoa(n))
	}
}
