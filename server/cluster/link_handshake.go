package cluster

import (
	"bufio"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

// The handshake of a node link (link.go): the acceptor greets with a
// nonce; the dialer answers with both node ids, its own nonce and an HMAC
// over them keyed by the cluster's link key; the acceptor answers with its
// own proof. One line each way, bounded by the command timeout.

// mac is the handshake's proof of the key over parts.
func mac(key []byte, parts ...string) string {
	h := hmac.New(sha256.New, key)
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func nonce() string {
	b := make([]byte, linkNonceSize)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// accept is the acceptor's side of the handshake; it returns the dialer's
// node id.
func (l *links) accept(c net.Conn, rd *bufio.Reader) (string, error) {
	_ = c.SetDeadline(time.Now().Add(l.n.opts.OpTimeout))
	ours := nonce()
	if _, err := fmt.Fprintf(c, "%s %s\n", linkProto, ours); err != nil {
		return "", err
	}
	line, err := readLine(rd)
	if err != nil {
		return "", err
	}
	f := strings.Fields(line)
	if len(f) != 4 {
		return "", fmt.Errorf("handshake %.80q", line)
	}
	from, to, theirs, proof := f[0], f[1], f[2], f[3]
	key := l.currentKey()
	id, leased := l.n.ID()
	if !leased || to != id {
		return "", fmt.Errorf("link for node %.40q, this node is %s", to, id)
	}
	if !hmac.Equal([]byte(proof), []byte(mac(key, "dial", ours, theirs, from, to))) {
		return "", errors.New("the dialer does not hold the cluster's link key")
	}
	if _, err := fmt.Fprintf(c, "%s\n", mac(key, "accept", theirs, ours, from, to)); err != nil {
		return "", err
	}
	_ = c.SetDeadline(time.Time{})
	return from, nil
}

// readLine reads a handshake line (short, bounded).
func readLine(rd *bufio.Reader) (string, error) {
	line, err := rd.ReadSlice('\n')
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(line)), nil
}

// dial opens and authenticates a link to node.
func (l *links) dial(node string) (net.Conn, error) {
	ctx, cancel := l.n.opCtx(l.n.ctx)
	defer cancel()
	v, err := l.n.rdb.Get(ctx, l.n.key("n", node)).Result()
	if err != nil {
		return nil, fmt.Errorf("the lease of node %s: %w", node, err)
	}
	var lease struct {
		Link string `json:"link"`
	}
	if json.Unmarshal([]byte(v), &lease) != nil || lease.Link == "" {
		return nil, fmt.Errorf("node %s advertises no link", node)
	}
	d := net.Dialer{Timeout: l.n.opts.OpTimeout, KeepAlive: 15 * time.Second}
	c, err := d.DialContext(ctx, "tcp", lease.Link)
	if err != nil {
		return nil, err
	}
	if err := l.handshake(c, node); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("link to node %s at %s: %w", node, lease.Link, err)
	}
	return c, nil
}

// handshake is the dialer's side.
func (l *links) handshake(c net.Conn, node string) error {
	_ = c.SetDeadline(time.Now().Add(l.n.opts.OpTimeout))
	rd := bufio.NewReaderSize(c, 256)
	line, err := readLine(rd)
	if err != nil {
		return err
	}
	f := strings.Fields(line)
	if len(f) != 2 || f[0] != linkProto {
		return fmt.Errorf("greeting %.80q", line)
	}
	theirs, ours := f[1], nonce()
	id, _ := l.n.ID()
	key := l.currentKey()
	if _, err := fmt.Fprintf(c, "%s %s %s %s\n", id, node, ours, mac(key, "dial", theirs, ours, id, node)); err != nil {
		return err
	}
	line, err = readLine(rd)
	if err != nil {
		return err
	}
	if !hmac.Equal([]byte(line), []byte(mac(key, "accept", ours, theirs, id, node))) {
		return errors.New("the node does not hold the cluster's link key")
	}
	return c.SetDeadline(time.Time{})
}
