// Package fulltext is the document server's full-text index: the text of
// every page of the served documents in a Bleve index (scorch segments on
// disk, BM25 ranking), with a record per file of the version it holds, so
// that an unchanged file is never extracted again.
//
// One page is one index document: the document's title (on its first page
// only, so that a title word finds the document once), the page's headings
// and its text, each analyzed by Words. The index keeps only what it needs
// to find and rank pages: which words each page holds and how often, not
// where (no term vectors) and not the text itself, which the caller has
// in its documents. A phrase therefore finds the pages that hold all of
// its words; the caller checks their order on the page's text
// (Query.Spans), as it must anyway to show where they are. That halves the
// index and its build time. A file's record and its pages are
// written in one batch, which scorch makes visible and persists as a
// unit: an index cut short (a crash, kill -9) holds each file as it was
// before or after its batch, never half of it, and the records say which
// files are missing.
//
// An index that does not open (damaged, another schema) is removed and
// built again. One that another process holds open is not opened (bolt
// locks it for its writer): Open returns an *InUseError that names that
// process, and the caller searches without an index until it is free.
package fulltext

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// Field names of the index documents.
const (
	fieldKind       = "kind" // "page" or "file"
	fieldRel        = "rel"
	fieldTitle      = "title" // indexed, on a document's first page
	fieldHeadings   = "headings"
	fieldBody       = "body"
	fieldFileType   = "file_type"
	fieldSeq        = "seq"
	fieldVersion    = "version"
	fieldPages      = "pages"
	fieldIndexed    = "indexed"
	fieldUnreadable = "unreadable"
)

// prefixField names the field that holds the prefixes (see PrefixRunes)
// of a text field's words.
func prefixField(field string) string { return field + "_prefixes" }

// schemaVersion changes when the index's layout or analysis changes; an
// index of another version is built again.
// 2: the prefix fields. 3: no positions, no text stored, no _all.
// 4: a page's file and number only in its id; prefixes of 1, 2 and 4.
const schemaVersion = 4

// metaFile records what an index directory holds.
const metaFile = "meta.json"

// DefaultLockWait is how long Open waits for an index another process holds.
const DefaultLockWait = 500 * time.Millisecond

// Options configure Open.
type Options struct {
	// Dir holds the index ("" for an index in memory).
	Dir string
	// Schema names what produced the text (the extractors' version): an
	// index made under another is built again.
	Schema string
	// Root is the folder whose documents are indexed, recorded so that
	// RemoveStale can tell an index whose folder is gone.
	Root string
	// LockWait bounds the wait for an index another process holds
	// (default DefaultLockWait); then an index in memory is used.
	LockWait time.Duration
	Logger   *slog.Logger
}

// Record is what the index holds of one file.
type Record struct {
	// Version is the caller's key of the file version indexed.
	Version string
	// Pages counts the document's pages; Indexed the leading pages in the
	// index (fewer when the document's text passed the bound).
	Pages, Indexed int
	// Unreadable says why the file could not be read ("" when it was).
	Unreadable string
	// Seq orders the writes: a page written by a later batch has a
	// higher Seq.
	Seq uint64
}

// Page is the text of one page to index.
type Page struct {
	Headings string
	Body     string
}

// Doc is one file's text to index: its leading pages (all of them unless
// the text passed a bound), or why it cannot be read.
type Doc struct {
	Rel, Version, FileType, Title string
	Pages                         []Page
	TotalPages                    int
	Unreadable                    string
}

// Index is an open full-text index.
type Index struct {
	idx bleve.Index
	dir string // "" in memory
	log *slog.Logger

	// mu guards the records and the write sequence. Batches are written
	// to Bleve outside it, several at once, and published (their records
	// and Seq made visible to views) in the order of their Seq: a view
	// sees the records of every batch up to its Seq, and its searches
	// hide the pages of later ones (Filter.MaxSeq).
	mu        sync.RWMutex
	published *sync.Cond // signalled when seq moves
	records   map[string]Record
	seq       uint64 // of the last batch published
	reserved  uint64 // of the last batch begun
	gen       uint64 // moves whenever the records change
	share     *sharer
	last      lastPool
}

// lastPool is the ranked pool of the last search (see View.pool).
type lastPool struct {
	mu       sync.Mutex
	key      string
	gen, seq uint64
	hits     Hits
}

type meta struct {
	Schema string `json:"schema"`
	Root   string `json:"root"`
}

// Open opens the index in opts.Dir, or creates it; see the package
// comment for what happens to an index that does not open.
func Open(opts Options) (*Index, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.LockWait <= 0 {
		opts.LockWait = DefaultLockWait
	}
	ix := &Index{dir: opts.Dir, log: opts.Logger, records: map[string]Record{}}
	ix.published = sync.NewCond(&ix.mu)
	if opts.Dir == "" {
		return ix, ix.openMemory()
	}
	want := meta{Schema: fmt.Sprintf("%d/%s", schemaVersion, opts.Schema), Root: opts.Root}
	path := filepath.Join(opts.Dir, "index")
	cfg := map[string]any{"bolt_timeout": opts.LockWait.String()}
	if readMeta(opts.Dir) == want {
		idx, err := bleve.OpenUsing(path, cfg)
		if err == nil {
			ix.idx = idx
			if err = ix.loadRecords(); err == nil {
				writeHolder(opts.Dir)
				return ix, nil
			}
			idx.Close()
		}
		if isLocked(err) {
			return nil, &InUseError{Dir: opts.Dir, PID: readHolder(opts.Dir)}
		}
		ix.log.Warn("search index does not open; building it again", "dir", opts.Dir, "err", err)
	}
	if err := os.RemoveAll(opts.Dir); err != nil {
		return nil, fmt.Errorf("fulltext: remove %s: %w", opts.Dir, err)
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("fulltext: %w", err)
	}
	idx, err := bleve.NewUsing(path, newMapping(), scorch.Name, scorch.Name, cfg)
	if err != nil {
		return nil, fmt.Errorf("fulltext: create %s: %w", path, err)
	}
	ix.idx = idx
	// The meta file is written last: a directory without it is not an
	// index yet.
	if err := writeMeta(opts.Dir, want); err != nil {
		idx.Close()
		return nil, err
	}
	writeHolder(opts.Dir)
	return ix, nil
}

// InUseError says that another process holds the index open.
type InUseError struct {
	Dir string
	PID int // the holder's process id, 0 when it cannot be told
}

func (e *InUseError) Error() string {
	return "fulltext: the index in " + e.Dir + " is held by " + Holder(e.PID)
}

// Holder names the process with pid that holds an index ("process 123",
// or "another process" when pid is 0).
func Holder(pid int) string {
	if pid > 0 {
		return "process " + strconv.Itoa(pid)
	}
	return "another process"
}

// holderFile names the process that holds an index open.
const holderFile = "holder"

// writeHolder records this process as the index's holder (best effort:
// it only serves to name the holder to another opener).
func writeHolder(dir string) {
	_ = os.WriteFile(filepath.Join(dir, holderFile), []byte(strconv.Itoa(os.Getpid())), 0o600)
}

func readHolder(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, holderFile))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

func (ix *Index) openMemory() error {
	idx, err := bleve.NewUsing("", newMapping(), scorch.Name, scorch.Name, nil)
	if err != nil {
		return fmt.Errorf("fulltext: index in memory: %w", err)
	}
	ix.idx = idx
	return nil
}

// isLocked reports whether err is bolt's timeout on a file another
// process holds.
func isLocked(err error) bool {
	return err != nil && strings.Contains(err.Error(), "timeout")
}

func readMeta(dir string) meta {
	var m meta
	b, err := os.ReadFile(filepath.Join(dir, metaFile))
	if err == nil {
		_ = json.Unmarshal(b, &m)
	}
	return m
}

func writeMeta(dir string, m meta) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, metaFile+".tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("fulltext: write meta: %w", err)
	}
	return os.Rename(tmp, filepath.Join(dir, metaFile))
}

// newMapping is the index's mapping: page and file documents, told apart
// by kind, no dynamic fields, BM25 scoring.
func newMapping() mapping.IndexMapping {
	text := func() *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzerName
		f.Store = false
		f.IncludeTermVectors = false // see the package comment on phrases
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	// prefixes indexes a text field's words again, by their prefixes, in
	// a field of its own.
	prefixes := func(field string) *mapping.FieldMapping {
		f := text()
		f.Name = prefixField(field)
		f.Analyzer = prefixAnalyzerName
		return f
	}
	keyword := func(index, store bool) *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Index = index
		f.Store = store
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	number := func(index bool) *mapping.FieldMapping {
		f := bleve.NewNumericFieldMapping()
		f.Index = index
		f.Store = true
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(fieldKind, keyword(true, false))
	doc.AddFieldMappingsAt(fieldRel, keyword(false, true)) // of a file record
	doc.AddFieldMappingsAt(fieldTitle, text(), prefixes(fieldTitle))
	doc.AddFieldMappingsAt(fieldHeadings, text(), prefixes(fieldHeadings))
	doc.AddFieldMappingsAt(fieldBody, text(), prefixes(fieldBody))
	doc.AddFieldMappingsAt(fieldFileType, keyword(true, false))
	doc.AddFieldMappingsAt(fieldSeq, number(true))
	doc.AddFieldMappingsAt(fieldVersion, keyword(false, true))
	doc.AddFieldMappingsAt(fieldPages, number(false))
	doc.AddFieldMappingsAt(fieldIndexed, number(false))
	doc.AddFieldMappingsAt(fieldUnreadable, keyword(false, true))
	// No "_all" field: every query names its fields, and composing it
	// cost a tenth of the build.
	doc.AddSubDocumentMapping("_all", bleve.NewDocumentDisabledMapping())

	m := bleve.NewIndexMapping()
	m.DefaultMapping = doc
	m.DefaultAnalyzer = analyzerName
	m.ScoringModel = index.BM25Scoring
	m.IndexDynamic = false
	m.StoreDynamic = false
	m.DocValuesDynamic = false
	return m
}

func pageID(rel string, page int) string { return "p:" + strconv.Itoa(page) + ":" + rel }
func fileID(rel string) string           { return "f:" + rel }

// loadRecords reads every file record.
func (ix *Index) loadRecords() error {
	q := query.NewTermQuery("file")
	q.SetField(fieldKind)
	const step = 10_000
	var after []string
	for {
		req := bleve.NewSearchRequestOptions(q, step, 0, false)
		req.SortBy([]string{"_id"})
		req.Fields = []string{fieldRel, fieldVersion, fieldPages, fieldIndexed, fieldUnreadable, fieldSeq}
		if after != nil {
			req.SetSearchAfter(after)
		}
		res, err := ix.idx.Search(req)
		if err != nil {
			return fmt.Errorf("fulltext: read records: %w", err)
		}
		for _, h := range res.Hits {
			rel, _ := h.Fields[fieldRel].(string)
			if rel == "" {
				return fmt.Errorf("fulltext: record %q has no path", h.ID)
			}
			r := Record{Version: str(h.Fields[fieldVersion]), Pages: num(h.Fields[fieldPages]),
				Indexed: num(h.Fields[fieldIndexed]), Unreadable: str(h.Fields[fieldUnreadable]), Seq: uint64(num(h.Fields[fieldSeq]))}
			ix.records[rel] = r
			ix.seq = max(ix.seq, r.Seq)
			ix.reserved = ix.seq
		}
		if len(res.Hits) < step {
			return nil
		}
		after = res.Hits[len(res.Hits)-1].Sort
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num(v any) int {
	f, _ := v.(float64)
	return int(f)
}

// Put writes documents in one batch: each replaces what the index held of
// its file. Puts of different files may run at once (the batches are
// built and analyzed in parallel); views see each batch whole, in order.
func (ix *Index) Put(docs ...Doc) error {
	ix.mu.Lock()
	idx := ix.idx
	if idx == nil {
		ix.mu.Unlock()
		return fmt.Errorf("fulltext: write batch: %w", bleve.ErrorIndexClosed)
	}
	ix.reserved++
	seq := ix.reserved
	b, recs, err := ix.batchLocked(seq, docs)
	ix.mu.Unlock()
	if err == nil {
		if err = idx.Batch(b); err != nil {
			err = fmt.Errorf("fulltext: write batch: %w", err)
		}
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for ix.seq != seq-1 {
		ix.published.Wait()
	}
	if err == nil {
		for rel, r := range recs {
			ix.records[rel] = r
		}
		ix.gen++
	}
	ix.seq = seq // a failed batch publishes nothing, and holds up no later one
	ix.published.Broadcast()
	return err
}

// batchLocked builds the Bleve batch of docs, written as seq, and the
// records it makes. ix.mu is held.
func (ix *Index) batchLocked(seq uint64, docs []Doc) (*bleve.Batch, map[string]Record, error) {
	b := ix.idx.NewBatch()
	recs := make(map[string]Record, len(docs))
	for _, d := range docs {
		old := ix.records[d.Rel]
		if r, ok := recs[d.Rel]; ok {
			old = r
		}
		for p := len(d.Pages); p < old.Indexed; p++ {
			b.Delete(pageID(d.Rel, p))
		}
		for p := range d.Pages {
			if err := b.IndexAdvanced(pageDoc(&d, p, seq)); err != nil {
				return nil, nil, fmt.Errorf("fulltext: index %s page %d: %w", d.Rel, p, err)
			}
		}
		r := Record{Version: d.Version, Pages: d.TotalPages, Indexed: len(d.Pages), Unreadable: d.Unreadable, Seq: seq}
		if err := b.IndexAdvanced(fileDoc(d.Rel, r)); err != nil {
			return nil, nil, fmt.Errorf("fulltext: index record of %s: %w", d.Rel, err)
		}
		recs[d.Rel] = r
	}
	return b, recs, nil
}

// Delete removes files from the index.
func (ix *Index) Delete(rels ...string) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.idx == nil {
		return fmt.Errorf("fulltext: delete: %w", bleve.ErrorIndexClosed)
	}
	b := ix.idx.NewBatch()
	var gone []string
	for _, rel := range rels {
		old, ok := ix.records[rel]
		if !ok {
			continue
		}
		for p := range old.Indexed {
			b.Delete(pageID(rel, p))
		}
		b.Delete(fileID(rel))
		gone = append(gone, rel)
	}
	if len(gone) == 0 {
		return nil
	}
	if err := ix.idx.Batch(b); err != nil {
		return fmt.Errorf("fulltext: delete: %w", err)
	}
	for _, rel := range gone {
		delete(ix.records, rel)
	}
	ix.gen++
	return nil
}

// View calls fn with a consistent view of the index: no write happens
// while it runs.
func (ix *Index) View(fn func(View) error) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return fn(View{ix})
}

// Records returns a copy of every file record.
func (ix *Index) Records() map[string]Record {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make(map[string]Record, len(ix.records))
	for k, v := range ix.records {
		out[k] = v
	}
	return out
}

// View is the index at one moment.
type View struct{ ix *Index }

// Seq is the Seq of the latest write.
func (v View) Seq() uint64 { return v.ix.seq }

// Record returns the record of a file.
func (v View) Record(rel string) (Record, bool) {
	r, ok := v.ix.records[rel]
	return r, ok
}

// Filter narrows a search.
type Filter struct {
	// FileType keeps pages of documents of that type ("" for all).
	FileType string
	// MaxSeq keeps pages written up to that Seq (0: up to the view's
	// Seq, which hides the batches being written).
	MaxSeq uint64
}

// Hit is one page that holds every word of a query (see the package
// comment on phrases).
type Hit struct {
	Rel   string
	Page  int
	Score float64
}

// Hits is one window of a search's ranked pages.
type Hits struct {
	Total int // pages that match
	Hits  []Hit
}

// Search returns the pages that hold every word of q, ranked best first
// (ties in path and page order), from the from-th, at most size of them.
// The caller checks a phrase's order on the page's text.
func (v View) Search(ctx context.Context, q Query, f Filter, from, size int) (Hits, error) {
	return v.search(ctx, q.bleveQuery(false), f, from, size, q.byDocument())
}

// search runs a query built by Query.bleveQuery: the pages it finds,
// ranked as byDocument says when weigh is set, else by page.
func (v View) search(ctx context.Context, q query.Query, f Filter, from, size int, weigh bool) (Hits, error) {
	req := v.request(q, f)
	if from >= rankPool || !weigh {
		return v.window(ctx, req, from, size) // past the pool: page order
	}
	pool, err := v.pool(ctx, req)
	if err != nil {
		return Hits{}, err
	}
	out := Hits{Total: pool.Total, Hits: slices.Clone(pool.Hits[min(from, len(pool.Hits)):min(from+size, len(pool.Hits))])}
	if end := from + size; end > rankPool && pool.Total > rankPool {
		// Below the pool's weighted scores (each at least its page's
		// own), in page order.
		rest, err := v.window(ctx, req, rankPool, end-rankPool)
		if err != nil {
			return Hits{}, err
		}
		out.Hits = append(out.Hits, rest.Hits...)
	}
	return out, nil
}

// rankPool is how many of a search's best pages byDocument ranks again.
const rankPool = 2000

// pool returns the search's best rankPool pages, weighted by byDocument;
// the last pool is kept for the next window of the same search.
func (v View) pool(ctx context.Context, req *bleve.SearchRequest) (Hits, error) {
	key, err := json.Marshal(req)
	if err != nil {
		return Hits{}, fmt.Errorf("fulltext: search: %w", err)
	}
	c := &v.ix.last
	c.mu.Lock()
	if c.key == string(key) && c.gen == v.ix.gen && c.seq == v.ix.seq {
		defer c.mu.Unlock()
		return c.hits, nil
	}
	c.mu.Unlock()
	hits, err := v.window(ctx, req, 0, rankPool)
	if err != nil {
		return Hits{}, err
	}
	byDocument(hits.Hits)
	c.mu.Lock()
	c.key, c.gen, c.seq, c.hits = string(key), v.ix.gen, v.ix.seq, hits
	c.mu.Unlock()
	return hits, nil
}

// byDocument weights each page's score by how many pages of its document
// match, 1 + ln(n), and sorts the pages by it (ties keep their order): a
// page's BM25 score favours short pages, so a word a testdata file
// mentions once would outrank the source file whose subject it is, which
// mentions it on thirty of its pages. The factor is at least 1, so the
// weighted pages still rank above those past the pool.
func byDocument(hits []Hit) {
	n := make(map[string]int, len(hits))
	for _, h := range hits {
		n[h.Rel]++
	}
	for i := range hits {
		hits[i].Score *= 1 + math.Log(float64(n[hits[i].Rel]))
	}
	slices.SortStableFunc(hits, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) })
}

// request builds the search request of q under f, best pages first (ties
// in id order).
func (v View) request(q query.Query, f Filter) *bleve.SearchRequest {
	bq := query.NewBooleanQuery(nil, nil, nil)
	bq.AddMust(q)
	var filters []query.Query
	if f.FileType != "" {
		t := query.NewTermQuery(strings.ToLower(f.FileType))
		t.SetField(fieldFileType)
		filters = append(filters, t)
	}
	if f.MaxSeq == 0 || f.MaxSeq > v.ix.seq {
		f.MaxSeq = v.ix.seq
	}
	if v.ix.reserved > f.MaxSeq { // else no page is newer
		most, yes := float64(f.MaxSeq), true
		r := query.NewNumericRangeInclusiveQuery(nil, &most, nil, &yes)
		r.SetField(fieldSeq)
		filters = append(filters, r)
	}
	if len(filters) > 0 {
		bq.AddFilter(query.NewConjunctionQuery(filters))
	}
	req := bleve.NewSearchRequestOptions(bq, 0, 0, false)
	req.Sort = search.SortOrder{&search.SortScore{Desc: true}, &search.SortDocID{}}
	return req
}

// window runs req for size pages from the from-th, in Bleve's order.
func (v View) window(ctx context.Context, req *bleve.SearchRequest, from, size int) (Hits, error) {
	r := *req
	r.From, r.Size = from, size
	res, err := v.ix.idx.SearchInContext(ctx, &r)
	if err != nil {
		return Hits{}, fmt.Errorf("fulltext: search: %w", err)
	}
	out := Hits{Total: int(res.Total), Hits: make([]Hit, 0, len(res.Hits))}
	for _, h := range res.Hits {
		rel, page, ok := parsePageID(h.ID)
		if !ok {
			return Hits{}, fmt.Errorf("fulltext: search: %q is not a page", h.ID)
		}
		out.Hits = append(out.Hits, Hit{Rel: rel, Page: page, Score: h.Score})
	}
	return out, nil
}

// Stats is the size of an index.
type Stats struct {
	Files       int    `json:"files"`
	DiskBytes   int64  `json:"disk_bytes"`
	MemoryBytes int64  `json:"memory_bytes"`
	Where       string `json:"where"` // "disk" or "memory"
}

// Stats measures the index.
func (ix *Index) Stats() Stats {
	ix.mu.RLock()
	st := Stats{Files: len(ix.records), Where: "disk"}
	ix.mu.RUnlock()
	if ix.dir == "" {
		st.Where = "memory"
	} else {
		st.DiskBytes = dirSize(ix.dir)
	}
	if adv, err := ix.idx.Advanced(); err == nil {
		if m, ok := adv.(interface{ MemoryUsed() uint64 }); ok {
			// Scorch's accounting can dip below zero while segments are
			// handed from the persister to the merger: unknown then.
			st.MemoryBytes = max(int64(m.MemoryUsed()), 0)
		}
	}
	return st
}

func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// Close closes the index (persisting what is written).
func (ix *Index) Close() error {
	ix.mu.Lock()
	sh := ix.share
	ix.share = nil
	ix.mu.Unlock()
	if sh != nil {
		sh.stop() // its answers read views: not under ix.mu
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.idx == nil {
		return nil
	}
	err := ix.idx.Close()
	ix.idx = nil
	if err != nil && !errors.Is(err, bleve.ErrorIndexClosed) {
		return fmt.Errorf("fulltext: close: %w", err)
	}
	return nil
}

// Compact merges the index's segments into one: the smallest index on
// disk and the fastest to search, at the cost of one pass over it (run it
// after a build wrote much, not after every change). Searches and writes
// go on meanwhile.
func (ix *Index) Compact(ctx context.Context) error {
	ix.mu.RLock()
	idx := ix.idx
	ix.mu.RUnlock()
	if idx == nil {
		return fmt.Errorf("fulltext: compact: %w", bleve.ErrorIndexClosed)
	}
	adv, err := idx.Advanced()
	if err != nil {
		return fmt.Errorf("fulltext: compact: %w", err)
	}
	sc, ok := adv.(*scorch.Scorch)
	if !ok {
		return nil // not a scorch index: nothing to merge
	}
	if err := sc.ForceMerge(ctx, &mergeplan.SingleSegmentMergePlanOptions); err != nil {
		return fmt.Errorf("fulltext: compact: %w", err)
	}
	return nil
}
