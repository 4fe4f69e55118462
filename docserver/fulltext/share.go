package fulltext

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Sharing: bolt lets one process open an index, but a second process on
// the same folder (`search --docs DIR` while a browser serves DIR) should
// not scan every document, or build a second index, when the first one
// has ranked them already. The holder therefore answers the index's reads
// — its records and ranked windows of pages — on a unix socket beside the
// index, which only this user can reach (the index's folder is 0700). The
// asker reads the pages' text itself, from the same files, so its answers
// are those the holder would give.

// Progress is how far the holder has built the index it shares.
type Progress struct {
	State       string `json:"state"`
	Indexed     int    `json:"indexed"`
	Total       int    `json:"total"`
	RemainingMs int64  `json:"remaining_ms,omitempty"`
}

// Reader is the index at one moment: a View of an index this process
// holds, or of one another process shares.
type Reader interface {
	// Seq is the Seq of the latest write.
	Seq() uint64
	// Record returns the record of a file.
	Record(rel string) (Record, bool)
	// Search returns a window of the pages that hold every word of q,
	// ranked best first (see View.Search).
	Search(ctx context.Context, q Query, f Filter, from, size int) (Hits, error)
}

// Read calls fn with a consistent view of the index (as View does).
func (ix *Index) Read(_ context.Context, fn func(Reader) error) error {
	return ix.View(func(v View) error { return fn(v) })
}

// shareTimeout bounds one request to the holder, when the caller's
// context sets no nearer deadline.
const shareTimeout = 5 * time.Second

// shareMaxLine bounds a request's and an answer's size (the records of
// 100,000 files take about 10 MB).
const shareMaxLine = 64 << 20

// shareWorkers bounds the requests a holder answers at once.
const shareWorkers = 8

type shareRequest struct {
	Op     string `json:"op"`            // "view" or "search"
	Gen    uint64 `json:"gen,omitempty"` // view: the generation of records the asker has
	Query  string `json:"query,omitempty"`
	Filter Filter `json:"filter"`
	From   int    `json:"from,omitempty"`
	Size   int    `json:"size,omitempty"`
}

type shareAnswer struct {
	Err      string            `json:"err,omitempty"`
	Seq      uint64            `json:"seq"`
	Gen      uint64            `json:"gen"`
	Records  map[string]Record `json:"records,omitempty"` // when Gen is not the asker's
	Progress Progress          `json:"progress"`
	Hits     Hits              `json:"hits"`
}

// sharer answers the requests of other processes for an index.
type sharer struct {
	ln    net.Listener
	path  string
	index string // the index's folder
	wg    sync.WaitGroup
}

// Share answers other processes' searches of the index until the index is
// closed; progress tells them how far it is built. Sharing is best effort:
// an error says why it is not shared (the index itself is unaffected).
func (ix *Index) Share(progress func() Progress) error {
	if ix.dir == "" {
		return errors.New("fulltext: share: an index in memory is not shared")
	}
	// Checked and set under ix.mu: a second Share must not remove the
	// socket of the first.
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.idx == nil || ix.share != nil {
		return errors.New("fulltext: share: the index is closed or shared already")
	}
	path, err := socketPath(ix.dir, true)
	if err != nil {
		return err
	}
	// The index's lock is this process's: a socket left there is one a
	// holder that died left behind.
	_ = os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return fmt.Errorf("fulltext: share: %w", err)
	}
	sh := &sharer{ln: ln, path: path, index: ix.dir}
	ix.share = sh
	sh.wg.Add(1)
	go func() {
		defer sh.wg.Done()
		sh.serve(ix, progress)
	}()
	return nil
}

// stop closes the socket and waits for the answers under way.
func (sh *sharer) stop() {
	sh.ln.Close()
	sh.wg.Wait()
	_ = os.Remove(sh.path)
	if dir := filepath.Dir(sh.path); dir != sh.index {
		_ = os.Remove(dir) // the private folder under TMPDIR, once no socket is left in it
	}
}

func (sh *sharer) serve(ix *Index, progress func() Progress) {
	sem := make(chan struct{}, shareWorkers)
	for {
		conn, err := sh.ln.Accept()
		if err != nil {
			return // closed
		}
		sem <- struct{}{}
		sh.wg.Add(1)
		go func() {
			defer func() { <-sem; sh.wg.Done() }()
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(shareTimeout))
			var req shareRequest
			if err := readLine(conn, &req); err != nil {
				ix.log.Debug("search index share: bad request", "err", err)
				return
			}
			ans := ix.answer(&req, progress)
			b, err := json.Marshal(ans)
			if err != nil {
				b, _ = json.Marshal(shareAnswer{Err: err.Error()})
			}
			_, _ = conn.Write(append(b, '\n'))
		}()
	}
}

// answer runs one request against a view of the index.
func (ix *Index) answer(req *shareRequest, progress func() Progress) shareAnswer {
	var ans shareAnswer
	if progress != nil {
		ans.Progress = progress()
	}
	err := ix.View(func(v View) error {
		ans.Seq, ans.Gen = ix.seq, ix.gen
		switch req.Op {
		case "view":
			if req.Gen != ix.gen {
				ans.Records = make(map[string]Record, len(ix.records))
				for k, r := range ix.records {
					ans.Records[k] = r
				}
			}
			return nil
		case "search":
			q, err := ParseQuery(req.Query)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(context.Background(), shareTimeout)
			defer cancel()
			ans.Hits, err = v.Search(ctx, q, req.Filter, req.From, req.Size)
			return err
		default:
			return fmt.Errorf("unknown request %q", req.Op)
		}
	})
	if err != nil {
		ans.Err = err.Error()
	}
	return ans
}

// readLine reads one JSON line (at most shareMaxLine bytes) into v.
func readLine(r io.Reader, v any) error {
	br := bufio.NewReaderSize(io.LimitReader(r, shareMaxLine), 64<<10)
	line, err := br.ReadBytes('\n')
	if err != nil {
		return err
	}
	return json.Unmarshal(line, v)
}

// maxSocketPath is the longest unix socket path every platform takes.
const maxSocketPath = 100

// socketPath is where the holder of the index in dir answers: in dir when
// the path is short enough for a socket, else in a folder of this user's
// under the temporary directory (created when create is set), named for
// dir.
func socketPath(dir string, create bool) (string, error) {
	p := filepath.Join(dir, "share.sock")
	if len(p) <= maxSocketPath {
		return p, nil
	}
	sum := sha256.Sum256([]byte(dir))
	base := filepath.Join(os.TempDir(), "smcp-browse-"+strconv.Itoa(os.Getuid()))
	if create {
		if err := os.MkdirAll(base, 0o700); err != nil {
			return "", fmt.Errorf("fulltext: share: %w", err)
		}
	}
	if err := ownPrivateDir(base); err != nil {
		return "", fmt.Errorf("fulltext: share: %w", err)
	}
	return filepath.Join(base, hex.EncodeToString(sum[:8])+".sock"), nil
}

// Remote is an index another process holds and shares.
type Remote struct {
	sock string
	pid  int

	mu       sync.Mutex
	gen      uint64
	records  map[string]Record
	progress Progress
}

// Ask connects to the process that holds the index in dir (see
// InUseError) and checks that it answers.
func Ask(ctx context.Context, dir string, pid int) (*Remote, error) {
	sock, err := socketPath(dir, false)
	if err != nil {
		return nil, err
	}
	r := &Remote{sock: sock, pid: pid}
	if _, err := r.refresh(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// PID is the holder's process id (0 when it cannot be told).
func (r *Remote) PID() int { return r.pid }

// Progress is how far the holder had built the index at the last answer.
func (r *Remote) Progress() Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.progress
}

// Read calls fn with the holder's index as it is now.
func (r *Remote) Read(ctx context.Context, fn func(Reader) error) error {
	v, err := r.refresh(ctx)
	if err != nil {
		return err
	}
	return fn(v)
}

// refresh asks for the holder's records (sent again only when they
// changed) and returns a view of them.
func (r *Remote) refresh(ctx context.Context) (remoteView, error) {
	r.mu.Lock()
	gen := r.gen
	r.mu.Unlock()
	ans, err := r.ask(ctx, shareRequest{Op: "view", Gen: gen})
	if err != nil {
		return remoteView{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if ans.Records != nil || ans.Gen != r.gen {
		r.records, r.gen = ans.Records, ans.Gen
	}
	r.progress = ans.Progress
	return remoteView{r: r, seq: ans.Seq, records: r.records}, nil
}

// ask sends one request and reads its answer, within ctx and shareTimeout.
func (r *Remote) ask(ctx context.Context, req shareRequest) (shareAnswer, error) {
	ctx, cancel := context.WithTimeout(ctx, shareTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", r.sock)
	if err != nil {
		return shareAnswer{}, fmt.Errorf("fulltext: ask the index's holder: %w", err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	b, err := json.Marshal(req)
	if err != nil {
		return shareAnswer{}, fmt.Errorf("fulltext: ask the index's holder: %w", err)
	}
	if _, err := conn.Write(append(b, '\n')); err != nil {
		return shareAnswer{}, fmt.Errorf("fulltext: ask the index's holder: %w", err)
	}
	var ans shareAnswer
	if err := readLine(conn, &ans); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return shareAnswer{}, fmt.Errorf("fulltext: the index's holder did not answer: %w", err)
	}
	if ans.Err != "" {
		return shareAnswer{}, fmt.Errorf("fulltext: the index's holder: %s", ans.Err)
	}
	return ans, nil
}

// remoteView is a Remote's index at one answer.
type remoteView struct {
	r       *Remote
	seq     uint64
	records map[string]Record
}

func (v remoteView) Seq() uint64 { return v.seq }

func (v remoteView) Record(rel string) (Record, bool) {
	rec, ok := v.records[rel]
	return rec, ok
}

// Search asks the holder for a window of ranked pages, hiding what it
// wrote after this view (as a local view does).
func (v remoteView) Search(ctx context.Context, q Query, f Filter, from, size int) (Hits, error) {
	if f.MaxSeq == 0 || f.MaxSeq > v.seq {
		f.MaxSeq = v.seq
	}
	ans, err := v.r.ask(ctx, shareRequest{Op: "search", Query: q.src, Filter: f, From: from, Size: size})
	if err != nil {
		return Hits{}, err
	}
	return ans.Hits, nil
}
