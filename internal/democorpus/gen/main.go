// Command gen copies a folder into the democorpus package so that it can be
// embedded: it removes the destination, then copies every regular file of
// the source with its relative path. Run it with go generate.
//
//	go run ./gen -from ../../testdata/corpus -to _corpus
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

func main() {
	from := flag.String("from", "", "source folder")
	to := flag.String("to", "", "destination folder (replaced)")
	flag.Parse()
	if *from == "" || *to == "" {
		fmt.Fprintln(os.Stderr, "usage: gen -from DIR -to DIR")
		os.Exit(2)
	}
	n, err := sync(*from, *to)
	if err != nil {
		fmt.Fprintln(os.Stderr, "democorpus gen:", err)
		os.Exit(1)
	}
	fmt.Printf("democorpus: copied %d files from %s to %s\n", n, *from, *to)
}

func sync(from, to string) (int, error) {
	if _, err := os.Stat(from); err != nil {
		return 0, err
	}
	if err := os.RemoveAll(to); err != nil {
		return 0, err
	}
	n := 0
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case !d.Type().IsRegular():
			return fmt.Errorf("%s: not a regular file", p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		return os.WriteFile(dst, b, 0o644)
	})
	return n, err
}
