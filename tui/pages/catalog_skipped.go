package pages

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/tui/common"
)

// catalogReader is a backend that reads a document server's Level 0
// catalog (*agent.Client does); the catalog learns from it what files
// each server left out.
type catalogReader interface {
	ReadCatalog(ctx context.Context, computer string, u dpe.URI) (*protocol.DPECatalog, error)
}

// catalogSkipped is what the document servers of a catalog left out of
// it, by host, and the hosts asked since the last reload.
type catalogSkipped struct {
	byHost map[string]*protocol.SkippedFiles
	asked  map[string]bool
}

// skippedMsg answers what the document server of host skipped.
type skippedMsg struct {
	owner   *catalogScreen
	host    string
	skipped *protocol.SkippedFiles
	err     error
}

// put records an answer; an error (a server without the extension, a
// timeout) leaves what was known.
func (k *catalogSkipped) put(msg skippedMsg) {
	if msg.err != nil {
		return
	}
	if k.byHost == nil {
		k.byHost = map[string]*protocol.SkippedFiles{}
	}
	if msg.skipped == nil {
		delete(k.byHost, msg.host)
		return
	}
	k.byHost[msg.host] = common.SanitizeSkipped(msg.skipped)
}

// note is the catalog title's note: "757 files not served (binary)".
func (k *catalogSkipped) note() string {
	n := 0
	reasons := map[string]bool{}
	for _, s := range k.byHost {
		n += s.Count
		for r := range s.Reasons {
			reasons[r] = true
		}
	}
	if n == 0 {
		return ""
	}
	word := " files"
	if n == 1 {
		word = " file"
	}
	return strconv.Itoa(n) + word + " not served (" + common.OneLine(strings.Join(slices.Sorted(maps.Keys(reasons)), ", ")) + ")"
}

// skippedCmd asks the document server of each host of docs not asked yet
// what it left out (one Level 0 read of one entry each).
func (s *catalogScreen) skippedCmd(docs []protocol.DPEDocumentSummary) tea.Cmd {
	if _, ok := s.c.Backend.(catalogReader); !ok {
		return nil
	}
	var cmds []tea.Cmd
	for _, d := range docs {
		u, err := dpe.Parse(d.URI)
		if err != nil || s.skipped.asked[u.Host] {
			continue
		}
		if s.skipped.asked == nil {
			s.skipped.asked = map[string]bool{}
		}
		s.skipped.asked[u.Host] = true
		host, one := u.Host, 1
		cmds = append(cmds, common.Call(s.c, func(ctx context.Context, b common.Backend) (*protocol.SkippedFiles, error) {
			cat, err := b.(catalogReader).ReadCatalog(ctx, s.comp, dpe.Catalog(host).WithQuery(dpe.Query{Limit: &one}))
			if err != nil {
				return nil, err
			}
			return cat.Skipped, nil
		}, func(sk *protocol.SkippedFiles, err error) tea.Msg {
			return skippedMsg{owner: s, host: host, skipped: sk, err: err}
		}))
	}
	return tea.Batch(cmds...)
}
