package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/internal/sanitize"
)

// newBlobCmd groups the blob transfer commands (client:get_blob and
// client:put_blob).
func newBlobCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "blob get|put",
		Short: "Read a tool result's blob by handle, or upload a file to a computer",
		Args:  usageArgs(cobra.NoArgs),
	}
	cmd.SetFlagErrorFunc(flagError)
	cmd.AddCommand(newBlobGetCmd(), newBlobPutCmd())
	return cmd
}

// blobResult is what --json prints for a blob read or upload.
type blobResult struct {
	Computer    string `json:"computer"`
	BlobHandle  string `json:"blob_handle,omitempty"`
	MIMEType    string `json:"mime_type,omitempty"`
	TotalSize   int64  `json:"total_size"`
	SHA256      string `json:"sha256"`
	File        string `json:"file,omitempty"`
	UploadID    string `json:"upload_id,omitempty"`
	LandingPath string `json:"landing_path,omitempty"`
}

func newBlobGetCmd() *cobra.Command {
	var (
		cf      connFlags
		outPath string
		jsonOut bool
	)
	cmd := &cobra.Command{
		Use:   "get COMPUTER HANDLE [-o FILE] (--demo | --server URL --office ID) [flags]",
		Short: "Read the blob of a tool result by its a2c_blob_handle",
		Long: `get reads the blob HANDLE (a tool result item's _meta.a2c_blob_handle) from
COMPUTER chunk by chunk (client:get_blob) and checks its size and sha256. The
bytes go to FILE (-o), or to stdout when it is not a terminal; the file is
written beside FILE and renamed when the blob is whole, so a failed read
leaves nothing. --json prints {computer, blob_handle, mime_type, total_size,
sha256, file} (then -o is required). Errors: "error CODE: message" on stderr
and exit status 1 (4018 with details.reason invalid_handle, forbidden, gone
or range).`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cf.check(false); err != nil {
				return report(cmd, err, false)
			}
			if jsonOut && outPath == "" {
				return report(cmd, usageErrorf("--json prints the blob's description: give -o FILE for its bytes"), false)
			}
			out := cmd.OutOrStdout()
			if outPath == "" && isTerminal(out) {
				return report(cmd, usageErrorf("the blob is binary: give -o FILE or redirect stdout"), false)
			}
			res, err := runBlobGet(cmd.Context(), &cf, args[0], args[1], outPath, out)
			if err != nil {
				return report(cmd, err, jsonOut)
			}
			if jsonOut {
				return writeJSON(out, res)
			}
			if outPath != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: %d bytes of %s, sha256 %s\n", sanitize.Text(outPath), res.TotalSize, sanitize.Text(res.MIMEType), res.SHA256)
			}
			return nil
		},
	}
	cmd.SetFlagErrorFunc(flagError)
	cf.register(cmd.Flags())
	f := cmd.Flags()
	f.StringVarP(&outPath, "output", "o", "", "write the blob to FILE")
	f.BoolVar(&jsonOut, "json", false, "print what was read as JSON (with -o)")
	return cmd
}

// runBlobGet reads the blob into outPath (through a temporary file) or w.
func runBlobGet(ctx context.Context, cf *connFlags, computer, handle, outPath string, w io.Writer) (blobResult, error) {
	res := blobResult{Computer: computer, BlobHandle: handle, File: outPath}
	var tmp *os.File
	if outPath != "" {
		var err error
		if tmp, err = os.CreateTemp(filepath.Dir(outPath), "."+filepath.Base(outPath)+".part-*"); err != nil {
			return res, fmt.Errorf("create %s: %w", outPath, err)
		}
		defer os.Remove(tmp.Name())
		defer tmp.Close()
		w = tmp
	}
	err := cf.with(ctx, func(s *session) error {
		info, err := s.Agent.CopyBlob(ctx, blobComputer(s, computer), handle, w)
		res.MIMEType, res.TotalSize, res.SHA256 = info.MIMEType, info.TotalSize, info.SHA256
		return wrapf(err, "get blob")
	})
	if err != nil || tmp == nil {
		return res, err
	}
	if err := tmp.Close(); err != nil {
		return res, fmt.Errorf("write %s: %w", outPath, err)
	}
	if err := os.Rename(tmp.Name(), outPath); err != nil {
		return res, fmt.Errorf("write %s: %w", outPath, err)
	}
	return res, nil
}

// blobComputer is the computer a blob command talks to: the one named,
// or the demo's when --demo runs one.
func blobComputer(s *session, named string) string {
	if s.demo {
		return s.Computer
	}
	return named
}

func newBlobPutCmd() *cobra.Command {
	var (
		cf      connFlags
		name    string
		jsonOut bool
	)
	cmd := &cobra.Command{
		Use:   "put COMPUTER FILE (--demo | --server URL --office ID) [flags]",
		Short: "Upload a file to a computer's landing directory",
		Long: `put sends FILE to COMPUTER in chunks (client:put_blob), declaring its size and
sha256, and prints the path the computer stored it at (landing_path), which a
tool call can then name. The computer keeps uploads only under the landing
root it is configured with (smcp-browse computer --landing-root). --as sets
the name hint (default FILE's base name). --json prints {computer, upload_id,
landing_path, total_size, sha256}. Errors: "error CODE: message" on stderr
and exit status 1 (4019 with details.reason forbidden, too_large, busy,
integrity, range, invalid_upload, invalid_declaration or io_error).`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cf.check(false); err != nil {
				return report(cmd, err, false)
			}
			res, err := runBlobPut(cmd.Context(), &cf, args[0], args[1], cmp.Or(name, filepath.Base(args[1])))
			if err != nil {
				return report(cmd, err, jsonOut)
			}
			if jsonOut {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), sanitize.Text(res.LandingPath))
			return err
		},
	}
	cmd.SetFlagErrorFunc(flagError)
	cf.register(cmd.Flags())
	f := cmd.Flags()
	f.StringVar(&name, "as", "", "name hint for the stored file (default FILE's base name)")
	f.BoolVar(&jsonOut, "json", false, "print the upload's result as JSON")
	return cmd
}

// runBlobPut hashes path and uploads it.
func runBlobPut(ctx context.Context, cf *connFlags, computer, path, name string) (blobResult, error) {
	res := blobResult{Computer: computer}
	f, err := os.Open(path)
	if err != nil {
		return res, usageErrorf("%v", err)
	}
	defer f.Close()
	h := sha256.New()
	size, err := io.Copy(h, f)
	if err != nil {
		return res, fmt.Errorf("read %s: %w", path, err)
	}
	if size == 0 {
		return res, usageErrorf("%s is empty: an upload has at least one byte", path)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return res, fmt.Errorf("read %s: %w", path, err)
	}
	err = cf.with(ctx, func(s *session) error {
		ret, err := s.Agent.PutBlob(ctx, blobComputer(s, computer), io.LimitReader(f, size), size, sum, name)
		if err != nil {
			return wrapf(err, "put blob")
		}
		res.UploadID, res.LandingPath, res.SHA256, res.TotalSize = ret.UploadID, ret.LandingPath, ret.SHA256, size
		if ret.SHA256 != sum {
			return fmt.Errorf("put blob: the computer stored sha256 %s, not %s: %w", ret.SHA256, sum, agent.ErrBlobCorrupt)
		}
		return nil
	})
	return res, err
}
