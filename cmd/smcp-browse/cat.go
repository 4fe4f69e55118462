package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/sanitize"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// newCatCmd prints a resource read through a Computer (client:read_resource).
func newCatCmd() *cobra.Command {
	var (
		cf      connFlags
		format  string
		jsonOut bool
	)
	cmd := &cobra.Command{
		Use:   "cat URI (--demo [--docs DIR] | --server URL --office ID --computer NAME) [flags]",
		Short: "Print a document, page or element (a dpe:// resource)",
		Long: `cat reads URI through a computer (client:read_resource) and prints it:
  dpe://HOST                         the catalog
  dpe://HOST/DOC                     a document's metadata (?depth=pages for its page index)
  dpe://HOST/DOC/pages/N             page N (0-based), e.g. ?format=markdown&categories=table
  dpe://HOST/DOC/elements/ID         one element
--format json|markdown|text sets the URI's format parameter. JSON is
pretty-printed; Markdown and text are printed as text, with terminal control
sequences removed (document text is untrusted).

--json prints the resources/read result (ReadResourceResult) exactly as
received. Errors: "error CODE: message" on stderr and exit status 1 (4201
document not found, 4202 page out of range, 4203 element not found, 4204
invalid dpe:// URI); with --json the error payload also goes to stdout.
A usage mistake exits with status 2.`,
		Example: `  smcp-browse cat --demo dpe://local.demo.docs/q3-report-4f2bf6/pages/0 --format markdown
  smcp-browse ls --demo --json | jq -r '.documents[0].uri' | xargs smcp-browse cat --demo`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cf.check(true); err != nil {
				return report(cmd, err, false)
			}
			uri := args[0]
			if err := checkURI(uri); err != nil {
				return report(cmd, err, jsonOut)
			}
			if format != "" {
				switch format {
				case dpe.FormatJSON, dpe.FormatMarkdown, dpe.FormatText:
				default:
					return report(cmd, usageErrorf("--format must be json, markdown or text, not %q", format), false)
				}
				u, err := dpe.Parse(uri)
				if err != nil {
					return report(cmd, err, jsonOut)
				}
				q := u.Query
				q.Format = format
				uri = u.WithQuery(q).String()
			}
			out := cmd.OutOrStdout()
			if jsonOut {
				raw, err := runCatJSON(cmd.Context(), &cf, uri)
				if err != nil {
					return report(cmd, err, true)
				}
				return writeRawJSON(out, raw)
			}
			ret, err := runCat(cmd.Context(), &cf, uri)
			if err != nil {
				return report(cmd, err, false)
			}
			return printContents(out, ret, isTerminal(out))
		},
	}
	cmd.SetFlagErrorFunc(flagError)
	cf.register(cmd.Flags())
	f := cmd.Flags()
	f.StringVar(&format, "format", "", "json, markdown or text (sets the URI's format parameter)")
	f.BoolVar(&jsonOut, "json", false, "print the ReadResourceResult JSON as received")
	return cmd
}

// checkURI refuses what is not a URI at all (4204: there is nothing to
// route) and a dpe:// URI that breaks the specification's rules (4204 with
// the rule), before connecting. Other schemes (window://, ...) go to the
// computer.
func checkURI(raw string) error {
	if dpe.IsDPE(raw) {
		_, err := dpe.Parse(raw)
		return err
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || strings.ContainsAny(raw, " \t\n") {
		return protocol.Errorf(protocol.CodeInvalidDPEURI, "%q is not a URI: give a dpe:// URI (dpe://HOST/DOC, …/pages/N, …/elements/ID)", raw).
			WithDetails(map[string]any{"uri": raw})
	}
	return nil
}

func runCat(ctx context.Context, cf *connFlags, uri string) (ret *protocol.ReadResourceRet, err error) {
	err = cf.with(ctx, func(s *session) error {
		ret, err = s.Agent.ReadResource(ctx, s.Computer, uri)
		return wrapf(err, "read %s", uri)
	})
	return ret, err
}

// runCatJSON is runCat returning the ReadResourceResult as received.
func runCatJSON(ctx context.Context, cf *connFlags, uri string) (raw json.RawMessage, err error) {
	err = cf.with(ctx, func(s *session) error {
		raw, err = s.Agent.ReadResourceJSON(ctx, s.Computer, uri)
		return wrapf(err, "read %s", uri)
	})
	return raw, err
}

// printContents writes each content of a read: JSON indented, other text
// sanitized, and binary content decoded, unless out is a terminal.
func printContents(out io.Writer, ret *protocol.ReadResourceRet, terminal bool) error {
	for i, c := range ret.Contents {
		if i > 0 {
			io.WriteString(out, "\n")
		}
		switch {
		case c.Blob != "":
			b, err := base64.StdEncoding.DecodeString(c.Blob)
			if err != nil {
				return fmt.Errorf("%s: blob is not base64: %w", c.URI, err)
			}
			if terminal {
				fmt.Fprintf(out, "[%s: %d bytes of %s; redirect the output to save them]\n", sanitize.Text(c.URI), len(b), sanitize.Text(mimeOr(c.MIMEType)))
				continue
			}
			if _, err := out.Write(b); err != nil {
				return err
			}
		case isJSON(c):
			var buf bytes.Buffer
			if err := json.Indent(&buf, []byte(c.Text), "", "  "); err != nil {
				io.WriteString(out, ensureNewline(sanitize.Display(c.Text)))
				continue
			}
			buf.WriteByte('\n')
			if _, err := out.Write(buf.Bytes()); err != nil {
				return err
			}
		default:
			if _, err := io.WriteString(out, ensureNewline(sanitize.Display(c.Text))); err != nil {
				return err
			}
		}
	}
	return nil
}

func isJSON(c protocol.ResourceContents) bool {
	if strings.Contains(c.MIMEType, "json") {
		return true
	}
	t := strings.TrimSpace(c.Text)
	return c.MIMEType == "" && (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t))
}

func mimeOr(m string) string {
	if m == "" {
		return "unknown type"
	}
	return m
}

func ensureNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
