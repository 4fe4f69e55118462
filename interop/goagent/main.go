// Command goagent is this project's Agent (package agent) driven through
// one interop scenario against peers built on the official a2c-smcp SDK:
// it connects to --server, joins --office, lists the room, fetches the
// tools of --computer, reads the desktop (a Computer may subscribe to its
// windows only then), calls --tool, optionally waits for a desktop change
// notification, checks how a Finder request is answered (--finder) and,
// with --want-resources / --want-config / --want-desktop-order, the
// get_resources, get_config and desktop answers of the 0.4 line, and with
// --want-blob-bytes an image tool result read by blob handle. It prints
// one line per check and exits 1 when any check fails.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/protocol"
)

type options struct {
	server, office, computer, name, path string
	tool, args, wantToolText             string
	wantWindow, wantAfterUpdate          string
	finder, wantVersion                  string
	wantResources, wantConfig            string
	wantDesktopOrder, wantSkill          string
	wantBlobBytes                        int
	timeout, toolTimeout                 time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.server, "server", "", "SMCP Server URL (required)")
	flag.StringVar(&o.office, "office", "interop", "office to join")
	flag.StringVar(&o.computer, "computer", "", "computer to query (required)")
	flag.StringVar(&o.name, "name", "go-agent", "this agent's name")
	flag.StringVar(&o.path, "path", "", "Socket.IO HTTP path (default /socket.io/)")
	flag.StringVar(&o.tool, "tool", "", "tool to call (required)")
	flag.StringVar(&o.args, "args", "{}", "tool arguments, a JSON object")
	flag.StringVar(&o.wantToolText, "want-tool-text", "", "text the tool result must contain")
	flag.StringVar(&o.wantWindow, "want-window", "", "text the desktop must contain")
	flag.StringVar(&o.wantAfterUpdate, "want-after-update", "", "after the tool call, wait for notify:update_desktop and a desktop containing this text")
	flag.StringVar(&o.finder, "finder", "", "expected answer to client:get_finder: routed, not-routed or unsupported")
	flag.StringVar(&o.wantVersion, "want-version", "", "a2c_version list_room must show for this agent")
	flag.StringVar(&o.wantResources, "want-resources", "", "BUNDLE=URI: client:get_resources of BUNDLE, all pages, must list URI")
	flag.StringVar(&o.wantConfig, "want-config", "", "comma-separated bundle_ids client:get_config must have as servers keys")
	flag.StringVar(&o.wantDesktopOrder, "want-desktop-order", "", "comma-separated window identifiers the desktop must show in this order (queries ignored)")
	flag.IntVar(&o.wantBlobBytes, "want-blob-bytes", 0, "call the image tool for this many bytes and read them by blob handle")
	flag.StringVar(&o.wantSkill, "want-skill", "", "NAME=TEXT: client:get_skills must list SKILL NAME and client:get_skill its SKILL.md, containing TEXT (sha256 checked)")
	flag.DurationVar(&o.timeout, "timeout", 60*time.Second, "bound of the whole run")
	flag.DurationVar(&o.toolTimeout, "tool-timeout", 15*time.Second, "timeout of the tool call (a fractional one checks it goes out as whole seconds)")
	flag.Parse()
	if o.server == "" || o.computer == "" || o.tool == "" {
		fmt.Fprintln(os.Stderr, "goagent: --server, --computer and --tool are required")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	if failed := run(ctx, o); failed > 0 {
		fmt.Printf("goagent: %d check(s) failed\n", failed)
		os.Exit(1)
	}
}

// checker prints and counts check outcomes.
type checker struct{ failed int }

func (c *checker) check(name string, start time.Time, err error) bool {
	took := time.Since(start).Round(100 * time.Microsecond)
	if err != nil {
		c.failed++
		fmt.Printf("FAIL %-22s %s: %v\n", name, took, err)
		return false
	}
	fmt.Printf("ok   %-22s %s\n", name, took)
	return true
}

// run performs the scenario's checks in order and returns how many failed.
func run(ctx context.Context, o options) int {
	var c checker
	desktopChanged := make(chan string, 16)
	start := time.Now()
	a, err := connectAgent(ctx, o, desktopChanged)
	if !c.check("connect", start, err) {
		return c.failed
	}
	defer a.Close()

	start = time.Now()
	if !c.check("join_office", start, a.JoinOffice(ctx, o.office)) {
		return c.failed
	}

	start = time.Now()
	c.check("list_room", start, checkListRoom(ctx, a, o))

	toolName := o.tool // the exposed name found in get_tools
	start = time.Now()
	if found, err := findTool(ctx, a, o); c.check("get_tools", start, err) {
		toolName = found
	}

	start = time.Now()
	c.check("get_desktop", start, desktopContains(ctx, a, o.computer, o.wantWindow))

	start = time.Now()
	c.check("tool_call "+o.tool, start, checkToolCall(ctx, a, o, toolName))

	runOptionalChecks(ctx, &c, a, o, desktopChanged)
	return c.failed
}

// connectAgent connects the agent, forwarding the computer of each desktop
// change notification to desktopChanged (dropped when it is full).
func connectAgent(ctx context.Context, o options, desktopChanged chan<- string) (*agent.Client, error) {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return agent.Connect(ctx, o.server, agent.Options{
		Name: o.name, Path: o.path, Timeout: 20 * time.Second, Logger: log,
		Handlers: agent.Handlers{UpdateDesktop: func(n protocol.UpdateComputerConfigReq) {
			select {
			case desktopChanged <- n.Computer:
			default:
			}
		}},
	})
}

// runOptionalChecks runs the checks that only some flags ask for.
func runOptionalChecks(ctx context.Context, c *checker, a *agent.Client, o options, desktopChanged <-chan string) {
	if o.wantAfterUpdate != "" {
		start := time.Now()
		c.check("notify:update_desktop", start, waitDesktopUpdate(ctx, a, o, desktopChanged))
	}
	if o.wantConfig != "" {
		start := time.Now()
		c.check("get_config", start, checkConfig(ctx, a, o))
	}
	if o.wantResources != "" {
		start := time.Now()
		c.check("get_resources", start, checkResources(ctx, a, o))
	}
	if o.wantDesktopOrder != "" {
		start := time.Now()
		c.check("desktop order", start, checkDesktopOrder(ctx, a, o))
	}
	if o.finder != "" {
		start := time.Now()
		c.check("get_finder ("+o.finder+")", start, checkFinder(ctx, a, o))
	}
	if o.wantBlobBytes > 0 {
		start := time.Now()
		c.check("image by blob handle", start, checkBlob(ctx, a, o))
	}
	if o.wantSkill != "" {
		start := time.Now()
		c.check("get_skills/get_skill", start, checkSkill(ctx, a, o))
	}
}

// checkBlob calls the image tool (window_server.py) for --want-blob-bytes
// bytes and checks the image item came by handle, without its data, and
// that GetBlob reads exactly the tool's bytes, sha256 checked.
func checkBlob(ctx context.Context, a *agent.Client, o options) error {
	name, err := findTool(ctx, a, options{computer: o.computer, tool: "image"})
	if err != nil {
		return err
	}
	n := o.wantBlobBytes
	res, err := a.CallTool(ctx, o.computer, name, map[string]any{"bytes": n}, 30*time.Second)
	if err != nil {
		return err
	}
	handles := agent.BlobHandles(res)
	if len(handles) != 1 {
		return fmt.Errorf("%d items by handle in %d items", len(handles), len(res.Content))
	}
	for i, h := range handles {
		if res.Content[i].Data != "" {
			return fmt.Errorf("item %d has a handle and %d bytes inline", i, len(res.Content[i].Data))
		}
		b, info, err := a.GetBlob(ctx, o.computer, h, 0)
		if err != nil {
			return err
		}
		want := make([]byte, n)
		for j := range want {
			want[j] = byte(j % 256)
		}
		if !bytes.Equal(b, want) || info.MIMEType != "image/png" {
			return fmt.Errorf("%d bytes of %s by handle, not the tool's %d", len(b), info.MIMEType, n)
		}
		fmt.Printf("     image: %d bytes by handle, sha256 %s\n", len(b), info.SHA256)
	}
	return nil
}

// checkSkill checks that the computer lists the SKILL named in
// --want-skill and serves its SKILL.md (GetSkill checks the sha256)
// without front matter, containing the wanted text; a traversal is 4017.
func checkSkill(ctx context.Context, a *agent.Client, o options) error {
	name, want, ok := strings.Cut(o.wantSkill, "=")
	if !ok {
		return fmt.Errorf("--want-skill %q is not NAME=TEXT", o.wantSkill)
	}
	list, err := a.GetSkills(ctx, o.computer)
	if err != nil {
		return err
	}
	var names []string
	for _, s := range list.Skills {
		names = append(names, s.Name)
		if s.Name == name {
			fmt.Printf("     skill %s: source %s, path %s, description %q, tags %v\n", s.Name, s.Source, s.Path, s.Description, s.Tags)
		}
	}
	if !slices.Contains(names, name) {
		return fmt.Errorf("get_skills lists %v, not %s", names, name)
	}
	ret, err := a.GetSkill(ctx, o.computer, name, "")
	if err != nil {
		return err
	}
	if ret.Body == nil || !strings.Contains(*ret.Body, want) || strings.HasPrefix(*ret.Body, "---") {
		return fmt.Errorf("get_skill %s = %+v, want a body without front matter containing %q", name, ret, want)
	}
	if _, err := a.GetSkill(ctx, o.computer, name, "../../etc/passwd"); protocol.CodeOf(err) != protocol.CodeSkillResourceInaccessible {
		return fmt.Errorf("get_skill %s ../../etc/passwd = %v, want 4017", name, err)
	}
	return nil
}

// checkListRoom checks that the room lists this agent and the computer,
// and this agent with the wanted a2c_version.
func checkListRoom(ctx context.Context, a *agent.Client, o options) error {
	list, err := a.ListRoom(ctx)
	if err != nil {
		return err
	}
	var me, pc *protocol.SessionInfo
	for i := range list {
		switch {
		case list[i].Name == o.name && list[i].Role == protocol.RoleAgent:
			me = &list[i]
		case list[i].Name == o.computer && list[i].Role == protocol.RoleComputer:
			pc = &list[i]
		}
	}
	if me == nil || pc == nil {
		return fmt.Errorf("want agent %q and computer %q in %+v", o.name, o.computer, list)
	}
	if o.wantVersion != "" && me.A2CVersion != o.wantVersion {
		return fmt.Errorf("this agent's a2c_version is %q, want %q", me.A2CVersion, o.wantVersion)
	}
	fmt.Printf("     members: %d; agent a2c_version %q, computer a2c_version %q\n", len(list), me.A2CVersion, pc.A2CVersion)
	return nil
}

// findTool checks the computer's tools and returns the exposed name of
// --tool among them (the name itself or one ending in "__" and it).
func findTool(ctx context.Context, a *agent.Client, o options) (string, error) {
	ret, err := a.GetTools(ctx, o.computer)
	if err != nil {
		return "", err
	}
	var names []string
	for _, t := range ret.Tools {
		names = append(names, t.Name)
		if t.Name == "" || len(t.ParamsSchema) == 0 {
			return "", fmt.Errorf("tool %+v lacks a name or params_schema", t)
		}
	}
	i := slices.IndexFunc(names, func(n string) bool { return n == o.tool || strings.HasSuffix(n, "__"+o.tool) })
	if i < 0 {
		return "", fmt.Errorf("tool %q not among %v", o.tool, names)
	}
	fmt.Printf("     tools: %s\n", strings.Join(names, ", "))
	return names[i], nil
}

// checkToolCall calls toolName with --args and checks the result is no
// error and contains --want-tool-text.
func checkToolCall(ctx context.Context, a *agent.Client, o options, toolName string) error {
	var params map[string]any
	if err := json.Unmarshal([]byte(o.args), &params); err != nil {
		return fmt.Errorf("--args: %w", err)
	}
	res, err := a.CallTool(ctx, o.computer, toolName, params, o.toolTimeout)
	if err != nil {
		return err
	}
	raw, _ := json.Marshal(res)
	if res.IsError {
		return fmt.Errorf("isError result: %s", raw)
	}
	if !strings.Contains(string(raw), o.wantToolText) {
		return fmt.Errorf("result does not contain %q: %.300s", o.wantToolText, raw)
	}
	return nil
}

// waitDesktopUpdate waits up to 15 s for a desktop change notification of
// the computer after which its desktop contains --want-after-update.
func waitDesktopUpdate(ctx context.Context, a *agent.Client, o options, desktopChanged <-chan string) error {
	for {
		select {
		case name := <-desktopChanged:
			if name != o.computer {
				continue
			}
			if err := desktopContains(ctx, a, o.computer, o.wantAfterUpdate); err == nil {
				return nil
			}
		case <-time.After(15 * time.Second):
			return fmt.Errorf("no notify:update_desktop with a desktop showing %q within 15s", o.wantAfterUpdate)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func checkConfig(ctx context.Context, a *agent.Client, o options) error {
	ret, err := a.GetConfig(ctx, o.computer)
	if err != nil {
		return err
	}
	for _, id := range strings.Split(o.wantConfig, ",") {
		var entry struct {
			BundleID string          `json:"bundle_id"`
			Type     string          `json:"type"`
			Params   json.RawMessage `json:"server_parameters"`
		}
		if err := json.Unmarshal(ret.Servers[id], &entry); err != nil || entry.Type == "" || len(entry.Params) == 0 {
			return fmt.Errorf("servers[%q] = %s (%v)", id, ret.Servers[id], err)
		}
		fmt.Printf("     %s: type %s, bundle_id %q, server_parameters %s\n", id, entry.Type, entry.BundleID, entry.Params)
	}
	return nil
}

func checkResources(ctx context.Context, a *agent.Client, o options) error {
	bundle, want, ok := strings.Cut(o.wantResources, "=")
	if !ok {
		return fmt.Errorf("--want-resources %q is not BUNDLE=URI", o.wantResources)
	}
	var uris []string
	cursor := ""
	for pages := 1; ; pages++ {
		ret, err := a.GetResources(ctx, o.computer, bundle, cursor)
		if err != nil {
			return err
		}
		for _, r := range ret.Resources {
			uris = append(uris, r.URI)
			if r.URI == want {
				raw, _ := json.Marshal(r)
				fmt.Printf("     %s\n", raw)
			}
		}
		if cursor = ret.NextCursor; cursor == "" {
			break
		}
		if pages > 100 {
			return errors.New("more than 100 pages")
		}
	}
	if !slices.Contains(uris, want) {
		return fmt.Errorf("%s lists %v, not %s", bundle, uris, want)
	}
	if _, err := a.GetResources(ctx, o.computer, "no-such-server", ""); protocol.CodeOf(err) != protocol.CodeMCPServerNotFound {
		return fmt.Errorf("unknown server answered %v, want 4014", err)
	}
	return nil
}

func checkDesktopOrder(ctx context.Context, a *agent.Client, o options) error {
	ret, err := a.GetDesktop(ctx, o.computer, 0, "")
	if err != nil {
		return err
	}
	var shown, ids []string
	for _, d := range ret.Desktops {
		first, _, _ := strings.Cut(d, "\n\n")
		shown = append(shown, first)
		id, _, _ := strings.Cut(first, "?")
		ids = append(ids, id)
	}
	fmt.Printf("     desktop shows: %s\n", strings.Join(shown, ", "))
	if want := strings.Split(o.wantDesktopOrder, ","); !slices.Equal(ids, want) {
		return fmt.Errorf("desktop order %v, want %v", ids, want)
	}
	return nil
}

func desktopContains(ctx context.Context, a *agent.Client, computer, want string) error {
	ret, err := a.GetDesktop(ctx, computer, 0, "")
	if err != nil {
		return err
	}
	if len(ret.Desktops) == 0 {
		return errors.New("the desktop is empty")
	}
	all := strings.Join(ret.Desktops, "\n---\n")
	if !strings.Contains(all, want) {
		return fmt.Errorf("desktop does not contain %q: %.300q", want, all)
	}
	return nil
}

// checkFinder checks the answer to client:get_finder (and, when Finder is
// not available, to client:read_resource too): it must come within 5 s.
func checkFinder(ctx context.Context, a *agent.Client, o options) error {
	const quick = 5 * time.Second
	fctx, cancel := context.WithTimeout(ctx, quick)
	defer cancel()
	ret, err := a.GetFinder(fctx, o.computer, agent.FinderQuery{Limit: 5})
	_, rerr := a.ReadResource(fctx, o.computer, "dpe://com.example.docs/")
	switch o.finder {
	case "routed":
		if err != nil {
			return err
		}
		if ret.TotalCount == 0 || len(ret.Documents) == 0 {
			return fmt.Errorf("empty catalog: %+v", ret)
		}
		return nil
	case "not-routed":
		for _, e := range []error{err, rerr} {
			if !errors.Is(e, agent.ErrNotRouted) {
				return fmt.Errorf("got %v, want agent.ErrNotRouted", e)
			}
		}
		fmt.Printf("     says: %v\n", err)
		return nil
	case "unsupported":
		for _, e := range []error{err, rerr} {
			var pe *protocol.Error
			if !errors.As(e, &pe) || pe.Code != protocol.CodeNotFound || !strings.Contains(pe.Message, "is not supported by computer") {
				return fmt.Errorf("got %v, want a 404 saying the computer does not support it", e)
			}
		}
		fmt.Printf("     says: %v\n", err)
		return nil
	}
	return fmt.Errorf("unknown --finder mode %q", o.finder)
}
