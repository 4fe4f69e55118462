package resindex

import (
	"maps"
	"slices"
	"strings"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// Host ownership (docs/interop.md, "Who owns a host"). Every host has at
// most one owner among the index's sources, in dpe:// and window:// URIs
// alike, so that no MCP server can answer for another's documents:
//
//  1. a host given to a server in the configuration (Options.Hosts)
//     belongs to that server;
//  2. any other host belongs to the first server whose listing has it,
//     for the life of the index: the owner keeps it across its re-listings
//     and restarts, and while it is down.
//
// An entry listed under a host another server owns is refused: it is left
// out of the catalog, the Desktop, read routing and subscriptions, counted
// in Catalog.Refused and logged.

// hostKind tells the two host namespaces apart.
type hostKind uint8

const (
	dpeKind hostKind = iota
	windowKind
)

func (k hostKind) scheme() string {
	if k == windowKind {
		return windowScheme
	}
	return "dpe://"
}

// hostKey is one host as a scheme uses it (ownership is by host alone).
type hostKey struct {
	kind hostKind
	host string
}

// refusal counts the entries of one listing refused under a host.
type refusal struct {
	owner   string
	entries int
}

// hostOwnerLocked returns the owner of k: configured, or the first server
// that listed it. Call with ix.mu held.
func (ix *Index) hostOwnerLocked(k hostKey) (string, bool) {
	if o, ok := ix.claims[k.host]; ok {
		return o, true
	}
	o, ok := ix.owners[k.host]
	return o, ok
}

// claimLocked reports whether server may list entries under k, making it
// the owner of a host nobody owns yet; it also returns the owner. Call
// with ix.mu held.
func (ix *Index) claimLocked(k hostKey, server string) (string, bool) {
	if o, ok := ix.hostOwnerLocked(k); ok {
		return o, o == server
	}
	ix.owners[k.host] = server
	return server, true
}

// liveOwnerLocked returns the owner of k when it is a registered source.
// Call with ix.mu held.
func (ix *Index) liveOwnerLocked(k hostKey) (string, bool) {
	o, ok := ix.hostOwnerLocked(k)
	if !ok || ix.sources[o] == nil {
		return "", false
	}
	return o, true
}

// logRefusalsLocked logs the refusals of st's listing that its previous
// listing (prev) did not have, once each: a server that keeps listing
// another's host is logged once per incarnation, not once per listing.
// Call with ix.mu held.
func (ix *Index) logRefusalsLocked(st *sourceState, prev map[hostKey]*refusal) {
	for _, k := range slices.SortedFunc(maps.Keys(st.refused), compareHostKeys) {
		r := st.refused[k]
		if p := prev[k]; p != nil && p.entries == r.entries && p.owner == r.owner {
			continue
		}
		ix.log.Warn("resource index: entries listed under a host owned by another server refused; reads of that host go to its owner only",
			"server", st.name, "host", k.kind.scheme()+k.host, "owner", r.owner, "entries", r.entries)
	}
}

func compareHostKeys(a, b hostKey) int {
	if a.kind != b.kind {
		return int(a.kind) - int(b.kind)
	}
	return strings.Compare(a.host, b.host)
}

// refusedLocked lists the dpe:// entries refused in the current listings,
// by server then host. Call with ix.mu held.
func (ix *Index) refusedLocked() []protocol.RefusedHost {
	var out []protocol.RefusedHost
	for _, name := range slices.Sorted(maps.Keys(ix.sources)) {
		st := ix.sources[name]
		for _, k := range slices.SortedFunc(maps.Keys(st.refused), compareHostKeys) {
			if k.kind == dpeKind {
				r := st.refused[k]
				out = append(out, protocol.RefusedHost{MCPServer: name, Host: k.host, Owner: r.owner, Documents: r.entries})
			}
		}
	}
	return out
}
