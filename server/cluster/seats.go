package cluster

import (
	"context"
	"strconv"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// Left is a session removed from an office; Version is the office's
// version after the removal.
type Left struct {
	SID, Office, Name string
	Role              protocol.Role
	Version           uint64
}

// Member is a session seated in an office.
type Member struct {
	SID, Name, Office, Version, Node string
	Role                             protocol.Role
}

// lefts decodes {office, role, name, sid, version} quintuples.
func lefts(v []string) []Left {
	var out []Left
	for i := 0; i+4 < len(v); i += 5 {
		ver, _ := strconv.ParseUint(v[i+4], 10, 64)
		out = append(out, Left{Office: v[i], Role: protocol.Role(v[i+1]), Name: v[i+2], SID: v[i+3], Version: ver})
	}
	return out
}

// JoinResult is the outcome of Join.
type JoinResult struct {
	// Node is the lease the seat was taken under.
	Node string
	// Version is the office's version after the join (its current one
	// when Noop).
	Version uint64
	// Noop: the session already held exactly this seat (an earlier join,
	// maybe one its node gave up on, took it).
	Noop bool
	// Code is a refusal's protocol code (4101, 4105, 4106), 0 on success;
	// Holder names the office's agent (4101) or the session's office (4106).
	Code   int
	Holder string
	// Left lists the sessions removed on the way: the session's previous
	// seat, and seats held by dead nodes' sessions.
	Left []Left
}

// Join seats m (m.Node is ignored: the node's current lease is used).
func (n *Node) Join(ctx context.Context, m Member) (JoinResult, error) {
	id, leased := n.ID()
	if !leased {
		return JoinResult{}, ErrFenced
	}
	ctx, cancel := n.opCtx(ctx)
	defer cancel()
	res, err := joinScript.Run(ctx, n.rdb, nil, n.opts.Prefix, id, m.SID, m.Name, string(m.Role), m.Office, m.Version).StringSlice()
	if err != nil {
		return JoinResult{}, n.unavailable("join", err)
	}
	out := JoinResult{Node: id}
	switch res[0] {
	case "fenced":
		n.fence(id, "lease gone from Redis at a join")
		return JoinResult{}, ErrFenced
	case "noop":
		out.Noop = true
	case "err":
		out.Code, _ = strconv.Atoi(res[1])
		out.Holder = res[2]
	}
	out.Version, _ = strconv.ParseUint(res[3], 10, 64)
	out.Left = lefts(res[4:])
	return out, nil
}

// Leave removes session sid from office ("" for any); the seat it left,
// if any, is returned.
func (n *Node) Leave(ctx context.Context, sid, office string) (*Left, error) {
	ctx, cancel := n.opCtx(ctx)
	defer cancel()
	res, err := leaveScript.Run(ctx, n.rdb, nil, n.opts.Prefix, sid, office).StringSlice()
	if err != nil {
		return nil, n.unavailable("leave", err)
	}
	if l := lefts(res); len(l) == 1 {
		return &l[0], nil
	}
	return nil, nil
}

// Where a Target lookup found the computer.
type Where int

const (
	// Found: in the caller's office.
	Found Where = iota
	// Missing: in no office (404).
	Missing
	// Elsewhere: only in other offices (4104).
	Elsewhere
)

// Target finds the live computer named name in office for the caller
// csid, seated under lease node: its sid and node when Found. It returns
// ErrSeatLost when the caller no longer holds its seat.
func (n *Node) Target(ctx context.Context, node, csid, office, name string) (sid, at string, where Where, err error) {
	ctx, cancel := n.opCtx(ctx)
	defer cancel()
	res, err := targetScript.Run(ctx, n.rdb, nil, n.opts.Prefix, node, csid, office, name).StringSlice()
	if err != nil {
		return "", "", Missing, n.unavailable("route", err)
	}
	switch res[0] {
	case "ok":
		return res[1], res[2], Found, nil
	case "lost":
		return "", "", Missing, ErrSeatLost
	case "cross":
		return "", "", Elsewhere, nil
	}
	return "", "", Missing, nil
}

// List returns office's live members for the caller csid seated under
// lease node, or ErrSeatLost.
func (n *Node) List(ctx context.Context, node, csid, office string) ([]Member, error) {
	ctx, cancel := n.opCtx(ctx)
	defer cancel()
	res, err := listScript.Run(ctx, n.rdb, nil, n.opts.Prefix, node, csid, office).StringSlice()
	if err != nil {
		return nil, n.unavailable("list", err)
	}
	if res[0] == "lost" {
		return nil, ErrSeatLost
	}
	var out []Member
	for i := 1; i+3 < len(res); i += 4 {
		out = append(out, Member{SID: res[i], Name: res[i+1], Role: protocol.Role(res[i+2]), Version: res[i+3], Office: office})
	}
	return out, nil
}
