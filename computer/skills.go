package computer

import (
	"context"
	"errors"
	"os"
	"slices"
	"sync"

	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/computer/mcpclient"
	"github.com/smcp-browse/smcp-browse/computer/skill"
	"github.com/smcp-browse/smcp-browse/internal/sanitize"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// DefaultSkillInlineBudget is the largest text resource of a SKILL sent
// inline in a client:get_skill answer (the SDK's 32 KiB); a bigger one,
// and any binary one, goes by blob handle (client:get_blob).
const DefaultSkillInlineBudget = 32 << 10

// skillFrontMatterSlack is read beyond the inline budget, for the front
// matter a SKILL.md loses before its body is measured.
const skillFrontMatterSlack = 64 << 10

// skillSet holds the SKILLs on offer: those of the configured folders
// (Options.SkillDirs) and those staged from each MCP server's skill://
// resources, by bundle_id.
type skillSet struct {
	mu   sync.Mutex
	user []protocol.A2CSkillRef
	mcp  map[string][]protocol.A2CSkillRef
	gen  map[string]int         // bumped when a server goes down: a staging begun before is dropped
	has  map[string]bool        // servers whose last listing had skill:// resources
	lock map[string]*sync.Mutex // one staging at a time per server
	home string                 // staging folder of MCP SKILLs ("" before Run)
	ctx  context.Context        // Run's: ends the stagings under way
	wg   sync.WaitGroup         // stagings under way
}

func newSkillSet() *skillSet {
	return &skillSet{mcp: map[string][]protocol.A2CSkillRef{}, gen: map[string]int{}, has: map[string]bool{}, lock: map[string]*sync.Mutex{}}
}

// list returns every SKILL: the folders' first, then each server's in
// configuration order.
func (c *Computer) listSkills() []protocol.A2CSkillRef {
	s := c.skills
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.user)
	for _, srv := range c.servers {
		out = append(out, s.mcp[srv.BundleID]...)
	}
	if out == nil {
		out = []protocol.A2CSkillRef{}
	}
	return out
}

// findSkill returns the SKILL called name.
func (c *Computer) findSkill(name string) (protocol.A2CSkillRef, bool) {
	for _, r := range c.listSkills() {
		if r.Name == name {
			return r, true
		}
	}
	return protocol.A2CSkillRef{}, false
}

// startSkills creates the staging folder, reads the configured folders
// and watches them until ctx ends; the returned function removes the
// staging folder.
func (c *Computer) startSkills(ctx context.Context) (cleanup func()) {
	home, err := os.MkdirTemp("", "smcp-skills-")
	if err != nil {
		c.log.Warn("no staging folder for MCP skills; skill:// resources are not offered", "err", err)
	}
	c.skills.mu.Lock()
	c.skills.home, c.skills.ctx = home, ctx
	c.skills.mu.Unlock()
	c.rescanSkillDirs(false)
	if len(c.opts.SkillDirs) > 0 {
		go func() {
			if err := skill.Watch(ctx, c.opts.SkillDirs, c.opts.Debounce, c.log, func() { c.rescanSkillDirs(true) }); err != nil {
				c.log.Warn("skill folders are not watched", "err", err)
			}
		}()
	}
	return func() {
		if home != "" {
			os.RemoveAll(home)
		}
	}
}

// rescanSkillDirs reads the configured folders again; with announce it
// emits server:update_skills (after any change under them: an edited
// SKILL.md changes what get_skill answers even when the list is the same).
func (c *Computer) rescanSkillDirs(announce bool) {
	refs, problems := skill.ScanDirs(c.opts.SkillDirs)
	for _, p := range problems {
		c.log.Warn("skill skipped", "path", p.Path, "err", p.Err)
	}
	c.skills.mu.Lock()
	c.skills.user = refs
	c.skills.mu.Unlock()
	if announce {
		c.emit(protocol.EventUpdateSkills)
	}
}

// stageSkills stages the SKILLs the server conn serves as skill://
// resources and announces a change.
func (c *Computer) stageSkills(conn *mcpclient.Conn) {
	if conn.Capabilities().Resources == nil {
		return
	}
	name := conn.Name()
	s := c.skills
	s.mu.Lock()
	home, gen, runCtx := s.home, s.gen[name], s.ctx
	l := s.lock[name]
	if l == nil {
		l = &sync.Mutex{}
		s.lock[name] = l
	}
	s.mu.Unlock()
	if home == "" {
		return
	}
	l.Lock()
	defer l.Unlock()
	ctx, cancel := context.WithTimeout(runCtx, 4*c.opts.RequestTimeout)
	defer cancel()
	cfg := conn.Config()
	origin := skill.Origin{BundleID: name, Local: cfg.Type == config.TypeStdio, URL: cfg.Params.URL}
	refs, problems, err := skill.StageMCP(ctx, conn, origin, home)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			c.log.Warn("skills of mcp server not staged", "server", name, "err", err)
		}
		return
	}
	for _, p := range problems {
		c.log.Warn("mcp skill skipped", "server", name, "uri", p.Path, "err", p.Err)
	}
	s.mu.Lock()
	if s.gen[name] != gen {
		s.mu.Unlock()
		return
	}
	changed := !skill.Equal(s.mcp[name], refs) || len(refs) > 0
	s.mcp[name] = refs
	s.has[name] = len(refs) > 0 || len(problems) > 0
	s.mu.Unlock()
	if changed {
		c.emit(protocol.EventUpdateSkills)
	}
}

// dropSkills forgets the SKILLs of a server that went down.
func (c *Computer) dropSkills(name string) {
	s := c.skills
	s.mu.Lock()
	s.gen[name]++
	had := len(s.mcp[name]) > 0
	delete(s.mcp, name)
	s.mu.Unlock()
	if had {
		c.emit(protocol.EventUpdateSkills)
	}
}

// skillsListChanged restages a server's SKILLs after its resources list
// changed, when it served skill:// resources before or is not a Finder
// server (a document server's list changes with every document: it is
// looked at when it comes up).
func (c *Computer) skillsListChanged(name string) {
	c.skills.mu.Lock()
	has := c.skills.has[name]
	c.skills.mu.Unlock()
	conn, ok := c.mgr.Conn(name)
	if !ok || (!has && conn.FinderCapable()) {
		return
	}
	c.goStageSkills(conn)
}

// goStageSkills stages conn's SKILLs in the background.
func (c *Computer) goStageSkills(conn *mcpclient.Conn) {
	c.skills.wg.Go(func() { c.stageSkills(conn) })
}

// handleGetSkills serves client:get_skills.
func (c *Computer) handleGetSkills(ctx context.Context, req protocol.GetSkillsReq) (any, error) {
	return protocol.GetSkillsRet{Skills: c.listSkills(), ReqID: req.ReqID}, nil
}

// handleGetSkill serves client:get_skill as the SDK does: a name that
// breaks the SKILL name lexer is 4016, a well-formed one naming no SKILL
// 4014, a resource that cannot be served 4017 with details.reason
// (traversal, forbidden, not_found, too_large).
func (c *Computer) handleGetSkill(ctx context.Context, req protocol.GetSkillReq) (any, error) {
	if err := skill.ValidName(req.Name); err != nil {
		return nil, protocol.Errorf(protocol.CodeSkillNameInvalid, "invalid skill name: %v", err).
			WithDetails(map[string]any{"name": clip(req.Name)})
	}
	ref, ok := c.findSkill(req.Name)
	if !ok {
		return nil, protocol.Errorf(protocol.CodeMCPServerNotFound, "no skill %q on this computer", clip(req.Name)).
			WithDetails(map[string]any{"name": clip(req.Name)})
	}
	// Only what can go inline is read: the rest would need a blob handle
	// (skill.DefaultMaxSize is the cap then). The slack lets a SKILL.md
	// whose body fits keep its front matter.
	budget := c.opts.SkillInlineBudget
	res, err := skill.Open(ref.Path, req.RelPath, min(int64(budget)+skillFrontMatterSlack, skill.DefaultMaxSize))
	if err != nil {
		return nil, skillAccessError(err, req.RelPath)
	}
	if !res.Text || len(res.Data) > budget {
		// Not inline: by blob handle, as the SDK sends it.
		return c.skillByHandle(req, ref.Path)
	}
	body := string(res.Data)
	return protocol.GetSkillRet{
		Name: req.Name, RelPath: res.RelPath, MIMEType: res.MIMEType, TotalSize: int64(len(res.Data)),
		SHA256: res.SHA256, Body: &body, ReqID: req.ReqID,
	}, nil
}

// skillByHandle answers client:get_skill with a blob handle for a
// resource that does not go inline (binary, or text over the budget),
// read whole up to skill.DefaultMaxSize (4017 too_large beyond it).
func (c *Computer) skillByHandle(req protocol.GetSkillReq, dir string) (any, error) {
	res, err := skill.Open(dir, req.RelPath, skill.DefaultMaxSize)
	if err != nil {
		return nil, skillAccessError(err, req.RelPath)
	}
	meta, err := c.blobs.putBytes(c.opts.Office, res.MIMEType, res.Data)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeSkillResourceInaccessible, "skill resource %q (%d bytes): %v", clip(res.RelPath), len(res.Data), err).
			WithDetails(map[string]any{"reason": skill.ReasonTooLarge, "rel_path": clip(res.RelPath), "total_size": len(res.Data)})
	}
	return protocol.GetSkillRet{
		Name: req.Name, RelPath: res.RelPath, MIMEType: res.MIMEType, TotalSize: meta.Size,
		SHA256: meta.SHA256, BlobHandle: meta.Handle, ReqID: req.ReqID,
	}, nil
}

// skillAccessError is the 4017 for err from skill.Open.
func skillAccessError(err error, relPath string) *protocol.Error {
	var ae *skill.AccessError
	if !errors.As(err, &ae) {
		return protocol.Errorf(protocol.CodeInternalError, "read skill resource: %v", err)
	}
	details := map[string]any{"reason": ae.Reason, "rel_path": clip(ae.RelPath)}
	if ae.Reason == skill.ReasonTooLarge {
		details["total_size"] = ae.TotalSize
	}
	return protocol.Errorf(protocol.CodeSkillResourceInaccessible, "skill resource %q not accessible: %s", clip(ae.RelPath), ae.Reason).
		WithDetails(details)
}

// maxEcho bounds the part of a request value an error repeats.
const maxEcho = 200

// clip shortens s for an error message, on a rune boundary.
func clip(s string) string { return sanitize.Clip(s, maxEcho) }
