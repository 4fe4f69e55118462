package mcpfacade

import (
	"context"
	"errors"
	"fmt"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// read reads a dpe:// URI through the computer that serves its host. The
// host → computer map is learned from the catalogs the façade reads and,
// for a host not seen yet, by asking each computer in turn: one that
// serves no such host says so with 4201 and the host in its details.
func (f *Facade) read(ctx context.Context, uri string) (*protocol.ReadResourceRet, string, error) {
	u, err := dpe.Parse(uri)
	if err != nil {
		return nil, "", err
	}
	office, err := f.attached(ctx)
	if err != nil {
		return nil, "", err
	}
	f.mu.Lock()
	known, ok := f.hosts[u.Host]
	f.mu.Unlock()
	candidates := []string{known}
	if !ok {
		if candidates, err = f.listComputers(ctx); err != nil {
			return nil, "", err
		}
	}
	for _, c := range candidates {
		cctx, cancel := f.call(ctx)
		ret, err := office.ReadResource(cctx, c, uri)
		cancel()
		if unknownHost(err, u.Host) {
			continue
		}
		if err == nil || protocol.CodeOf(err) != protocol.CodeNotFound {
			f.learnHost(u.Host, c)
		}
		return ret, c, err
	}
	if ok {
		// The computer that served the host no longer does: forget it
		// and look again once.
		f.forgetHost(u.Host)
		return f.read(ctx, uri)
	}
	return nil, "", protocol.Errorf(protocol.CodeDocumentNotFound, "no computer of the office serves host %q", u.Host).
		WithDetails(map[string]any{"host": u.Host, "uri": uri})
}

// unknownHost reports whether err is a computer's answer that none of its
// document servers serves host.
func unknownHost(err error, host string) bool {
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.CodeDocumentNotFound {
		return false
	}
	h, _ := pe.Details["host"].(string)
	return h == host
}

func (f *Facade) learnHost(host, computer string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hosts[host] = computer
}

func (f *Facade) forgetHost(host string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.hosts, host)
}

// hostOf returns the host of a catalog entry's URI.
func hostOf(d protocol.DPEDocumentSummary) (string, error) {
	u, err := dpe.Parse(d.URI)
	if err != nil {
		return "", fmt.Errorf("catalog entry %q: %w", d.URI, err)
	}
	return u.Host, nil
}
