package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func testdata(name string) string { return filepath.Join("..", "..", "testdata", "computer", name) }

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func names(servers []Server) []string {
	var out []string
	for _, s := range servers {
		out = append(out, s.Key)
	}
	return out
}

func TestLoadA2CFormat(t *testing.T) {
	cfg, err := Load(testdata("a2c.json"), Options{LookupEnv: envOf(map[string]string{"A2C_SMCP_LEVEL_docs-b": "x", "A2C_SMCP_LEVEL_docs_b": "debug"})})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Problems) != 0 {
		t.Fatalf("problems: %v", cfg.Problems)
	}
	if got, want := names(cfg.Servers), []string{"docs-b", "docs-a", "remote", "legacy-sse"}; !slices.Equal(got, want) {
		t.Fatalf("servers in file order = %v, want %v", got, want)
	}
	b := cfg.Servers[0]
	if b.BundleID != "docs-b" || b.Name != "docs-b" || b.Type != TypeStdio {
		t.Errorf("docs-b identity = %+v", b)
	}
	if b.Params.Env["TOKEN"] != "fallback-token" {
		t.Errorf("input default not applied: %q", b.Params.Env["TOKEN"])
	}
	if b.Params.Env["LEVEL"] != "level=debug" {
		t.Errorf("per-server env input not applied (embedded): %q", b.Params.Env["LEVEL"])
	}
	if b.Declared.Env["TOKEN"] != "${input:DOCS_TOKEN}" {
		t.Errorf("declared params must keep the placeholder, got %q", b.Declared.Env["TOKEN"])
	}
	if !b.Forbidden("fs_grep") || b.Forbidden("fs_tree") {
		t.Error("forbidden_tools not honoured")
	}
	tm := b.MergedToolMeta("fs_tree")
	if tm["auto_apply"] != false || tm["alias"] != "tree" || len(tm["tags"].([]any)) != 1 {
		t.Errorf("merged tool meta = %v", tm)
	}
	if other := b.MergedToolMeta("fs_find"); other["auto_apply"] != true {
		t.Errorf("default tool meta = %v", other)
	}
	a := cfg.Servers[1]
	if a.Name != "Docs A" || a.BundleID != "docs-a" {
		t.Errorf("docs-a = %q %q", a.Name, a.BundleID)
	}
	remote := cfg.Servers[2]
	if !remote.Disabled || remote.Type != TypeStreamable || remote.Params.Timeout != 30*time.Second {
		t.Errorf("remote = %+v", remote)
	}
	if len(cfg.Enabled()) != 3 {
		t.Errorf("enabled = %v", names(cfg.Enabled()))
	}
	sse := cfg.Servers[3]
	if sse.Params.Timeout != 5*time.Second || sse.Params.SSEReadTimeout != 300*time.Second {
		t.Errorf("sse timeouts = %v %v", sse.Params.Timeout, sse.Params.SSEReadTimeout)
	}
	if len(cfg.Warnings) != 1 || cfg.Warnings[0].Field != "vrl" {
		t.Errorf("warnings = %v", cfg.Warnings)
	}
	if len(cfg.Inputs) != 2 || cfg.Inputs[0].ID != "DOCS_TOKEN" || !cfg.Inputs[0].Password {
		t.Errorf("inputs = %+v", cfg.Inputs)
	}
}

func TestGetConfigJSONKeepsPlaceholders(t *testing.T) {
	cfg, err := Load(testdata("a2c.json"), Options{LookupEnv: envOf(map[string]string{"A2C_SMCP_DOCS_TOKEN": "s3cret"})})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Servers[0].Params.Env["TOKEN"] != "s3cret" {
		t.Fatalf("env input not used: %q", cfg.Servers[0].Params.Env["TOKEN"])
	}
	for _, s := range cfg.Servers {
		raw, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(raw), "s3cret") {
			t.Fatalf("resolved secret leaked into get_config JSON: %s", raw)
		}
		var back map[string]any
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		if back["type"] != s.Type || back["bundle_id"] != s.BundleID || back["server_parameters"] == nil {
			t.Errorf("get_config JSON = %s", raw)
		}
		// What we write must parse back as a valid entry.
		if _, _, err := parseEntry(s.Key, raw); err != nil {
			t.Errorf("re-parse %s: %v", raw, err)
		}
	}
}

func TestLoadMCPServersForm(t *testing.T) {
	cfg, err := Load(testdata("mcpservers.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Problems) != 0 {
		t.Fatalf("problems: %v", cfg.Problems)
	}
	want := map[string]string{"everything": TypeStdio, "web": TypeStreamable, "old-web": TypeSSE}
	for _, s := range cfg.Servers {
		if want[s.Key] != s.Type {
			t.Errorf("%s: type %q, want %q", s.Key, s.Type, want[s.Key])
		}
	}
	ev := cfg.Servers[0]
	if ev.Params.Command != "npx" || !slices.Equal(ev.Params.Args, []string{"-y", "@modelcontextprotocol/server-everything"}) || ev.Params.Env["DEBUG"] != "1" {
		t.Errorf("everything params = %+v", ev.Params)
	}
	if cfg.Servers[2].Params.Headers["X-Key"] != "k" {
		t.Errorf("headers = %v", cfg.Servers[2].Params.Headers)
	}
}

func TestBadEntriesAreReportedAndSkipped(t *testing.T) {
	cfg, err := Load(testdata("bad-entries.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(cfg.Servers); !slices.Equal(got, []string{"good", "good.dup"}) {
		t.Errorf("kept servers = %v, want [good good.dup]", got)
	}
	if cfg.Servers[1].BundleID != "good_dup" {
		t.Errorf("bundle of good.dup = %q", cfg.Servers[1].BundleID)
	}
	want := []struct{ entry, field, msg string }{
		{"", "extras", "unknown top-level field"},
		{"typo", "server_parameter", "unknown field"},
		{"no-command", "server_parameters.command", "missing"},
		{"bad-param", "server_parameters.argv", "unknown field"},
		{"bad-type", "type", "unknown type \"websocket\""},
		{"good_dup", "", "already used by server \"good.dup\""},
		{"missing-input", "server_parameters.env.K", "input \"NOPE\" is not declared"},
		{"both", "", "both command and url"},
		{"extra", "autoApprove", "unknown field"},
	}
	if len(cfg.Problems) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(cfg.Problems), len(want), cfg.Problems)
	}
	for _, w := range want {
		i := slices.IndexFunc(cfg.Problems, func(p Problem) bool { return p.Entry == w.entry && p.Field == w.field })
		if i < 0 {
			t.Errorf("no problem for entry %q field %q in %v", w.entry, w.field, cfg.Problems)
			continue
		}
		if msg := cfg.Problems[i].Error(); !strings.Contains(msg, w.msg) {
			t.Errorf("problem %q does not mention %q", msg, w.msg)
		}
		if w.entry != "" && !strings.Contains(cfg.Problems[i].Error(), w.entry) {
			t.Errorf("problem %q does not name its entry", cfg.Problems[i].Error())
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, doc := range []string{``, `[]`, `{"servers": {}} trailing`, `{"servers": {"a": {}}, "servers": {}}`, `nul`} {
		if _, err := Parse([]byte(doc), Options{}); err == nil {
			t.Errorf("Parse(%q) = nil error", doc)
		}
	}
}

func TestEntryFieldErrors(t *testing.T) {
	tests := []struct {
		name, entry, field string
	}{
		{"args not list", `{"type":"stdio","server_parameters":{"command":"x","args":"a b"}}`, "server_parameters.args"},
		{"env not strings", `{"type":"stdio","server_parameters":{"command":"x","env":{"A":[1]}}}`, "server_parameters.env.A"},
		{"disabled not bool", `{"type":"stdio","disabled":"yes","server_parameters":{"command":"x"}}`, "disabled"},
		{"bad bundle", `{"type":"stdio","bundle_id":"a__b","server_parameters":{"command":"x"}}`, "bundle_id"},
		{"bad bundle char", `{"type":"stdio","bundle_id":"a.b","server_parameters":{"command":"x"}}`, "bundle_id"},
		{"tool meta type", `{"type":"stdio","tool_meta":{"t":{"tags":"x"}},"server_parameters":{"command":"x"}}`, "tool_meta.t.tags"},
		{"bad url", `{"type":"sse","server_parameters":{"url":"ftp://x"}}`, "server_parameters.url"},
		{"stdio param on sse", `{"type":"sse","server_parameters":{"url":"http://x","command":"y"}}`, "server_parameters.command"},
		{"bad duration", `{"type":"streamable","server_parameters":{"url":"http://x","timeout":"soon"}}`, "server_parameters.timeout"},
		{"encoding", `{"type":"stdio","server_parameters":{"command":"x","encoding":"latin-1"}}`, "server_parameters.encoding"},
		{"no type", `{"server_parameters":{"command":"x"}}`, "type"},
		{"error handler", `{"type":"stdio","server_parameters":{"command":"x","encoding_error_handler":"backslashreplace"}}`, "server_parameters.encoding_error_handler"},
		{"headers not strings", `{"type":"sse","server_parameters":{"url":"http://x","headers":{"H":{}}}}`, "server_parameters.headers.H"},
		{"timeout out of range", `{"type":"sse","server_parameters":{"url":"http://x","timeout":-1}}`, "server_parameters.timeout"},
		{"terminate not bool", `{"type":"streamable","server_parameters":{"url":"http://x","terminate_on_close":"yes"}}`, "server_parameters.terminate_on_close"},
		{"entry not object", `[1]`, ""},
		{"entry null", `null`, ""},
		{"params null", `{"type":"stdio","server_parameters":null}`, "server_parameters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(`{"servers":{"e":`+tt.entry+`}}`), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(cfg.Servers) != 0 || len(cfg.Problems) != 1 {
				t.Fatalf("servers %v problems %v", names(cfg.Servers), cfg.Problems)
			}
			if p := cfg.Problems[0]; p.Entry != "e" || p.Field != tt.field {
				t.Errorf("problem at %q/%q (%v), want e/%q", p.Entry, p.Field, p, tt.field)
			}
		})
	}
}

func TestInputs(t *testing.T) {
	doc := `{"inputs":[
		{"id":"a","type":"pickString","description":"old form","options":["x","y"]},
		{"id":"b","type":"pickString","description":"new form","options":[{"label":"Ex","value":"x"},{"value":"y"}]},
		{"id":"c","type":"promptString","description":"typo","pasword":true},
		{"id":"d","type":"pickString","description":"bad options","options":[{"label":"no value"}]},
		{"id":"e","type":"command","description":"cmd","command":"date","args":{"k":"v"}},
		{"type":"promptString"}
	],"servers":{}}`
	cfg, err := Parse([]byte(doc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, in := range cfg.Inputs {
		ids = append(ids, in.ID)
	}
	if !slices.Equal(ids, []string{"a", "b", "e"}) {
		t.Fatalf("inputs kept = %v, problems %v", ids, cfg.Problems)
	}
	if want := []PickOption{{"x", "x"}, {"y", "y"}}; !slices.Equal(cfg.Inputs[0].Options, want) {
		t.Errorf("string options = %v", cfg.Inputs[0].Options)
	}
	if want := []PickOption{{"Ex", "x"}, {"y", "y"}}; !slices.Equal(cfg.Inputs[1].Options, want) {
		t.Errorf("label/value options = %v", cfg.Inputs[1].Options)
	}
	if cfg.Inputs[2].Command != "date" {
		t.Errorf("command input = %+v", cfg.Inputs[2])
	}
	wantFields := []string{"inputs[2].pasword", "inputs[3].options[0]", "inputs[5].id"}
	var fields []string
	for _, p := range cfg.Problems {
		fields = append(fields, p.Field)
	}
	if !slices.Equal(fields, wantFields) {
		t.Errorf("problems at %v, want %v (%v)", fields, wantFields, cfg.Problems)
	}
	if !strings.Contains(cfg.Problems[0].Error(), "unknown field") {
		t.Errorf("unknown input field reported as %q", cfg.Problems[0].Error())
	}
}

func TestEnvPlaceholder(t *testing.T) {
	doc := `{"servers":{"s":{"type":"streamable","server_parameters":{"url":"${env:MCP_URL}","headers":{"A":"x ${env:TOK}"}}}}}`
	cfg, err := Parse([]byte(doc), Options{LookupEnv: envOf(map[string]string{"MCP_URL": "http://h/mcp", "TOK": "t"})})
	if err != nil || len(cfg.Servers) != 1 {
		t.Fatalf("%v %v", err, cfg.Problems)
	}
	if p := cfg.Servers[0].Params; p.URL != "http://h/mcp" || p.Headers["A"] != "x t" {
		t.Errorf("params = %+v", p)
	}
	cfg, _ = Parse([]byte(doc), Options{})
	if len(cfg.Problems) != 1 || !strings.Contains(cfg.Problems[0].Error(), "MCP_URL") {
		t.Errorf("problems = %v", cfg.Problems)
	}
}

// Vectors from the protocol's bundle_id conformance fixture.
func TestBundleIDConformance(t *testing.T) {
	stdio := func(cmd string, args []string, env map[string]string) (string, Params) {
		return TypeStdio, Params{Command: cmd, Args: args, Env: env}
	}
	remote := func(typ, url string, headers map[string]string) (string, Params) {
		return typ, Params{URL: url, Headers: headers}
	}
	tests := []struct {
		name string
		typ  string
		p    Params
		want string
	}{
		{"everything", TypeStdio, Params{Command: "npx"}, "everything"},
		{"My Server!", TypeStdio, Params{}, "My_Server"},
		{"a__b", TypeStdio, Params{}, "a_b"},
		{"a.b.c", TypeStdio, Params{}, "a_b_c"},
		{"a-b--c", TypeStdio, Params{}, "a-b--c"},
		{"__lead_trail__", TypeStdio, Params{}, "lead_trail"},
		{"MyServer", TypeStdio, Params{}, "MyServer"},
	}
	add := func(name string, want string, typ string, p Params) {
		tests = append(tests, struct {
			name string
			typ  string
			p    Params
			want string
		}{name, typ, p, want})
	}
	typ, p := stdio("npx", []string{"-y", "everything"}, nil)
	add("你好世界", "bundle_8d2a9232fa76e8a5", typ, p)
	typ, p = stdio("uvx", []string{"mcp-server-git"}, nil)
	add("!!!@@@", "bundle_62515edd7632e701", typ, p)
	typ, p = stdio("node", []string{"a.js"}, map[string]string{"TOKEN": "x", "DEBUG": "1"})
	add("服务器", "bundle_05020ad7c2cc048d", typ, p)
	typ, p = remote(TypeStreamable, "https://api.example.com/mcp", nil)
	add("", "bundle_b413b61fe2e77b15", typ, p)
	typ, p = remote(TypeStreamable, "https://api.example.com/mcp", map[string]string{"Authorization": "Bearer z"})
	add("", "bundle_0706e7b45613df7a", typ, p)
	typ, p = remote(TypeSSE, "https://api.example.com/sse", nil)
	add("", "bundle_e1d7b1216a270815", typ, p)
	typ, p = stdio("node", []string{"server.js"}, map[string]string{"API_KEY": "${input:api_key}"})
	add("", "bundle_68ae00fea9122c01", typ, p)
	for _, tt := range tests {
		if got := deriveBundleID(tt.name, tt.typ, tt.p); got != tt.want {
			t.Errorf("bundle_id(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestParseDuration(t *testing.T) {
	good := map[string]time.Duration{"PT30S": 30 * time.Second, "PT1M30S": 90 * time.Second, "P1DT1H": 25 * time.Hour, "1.5s": 1500 * time.Millisecond, "PT0.5S": 500 * time.Millisecond}
	for in, want := range good {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "P", "PT", "P1M", "PTS", "PT1", "-1s", "P1H", "PT1D", "PT1S2"} {
		if _, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) accepted", in)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"a2c.json", "mcpservers.json", "bad-entries.json"} {
		data, err := readFile(testdata(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"servers":{"x":{"type":"stdio","server_parameters":{"command":"${input:a}${env:b}"}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data, Options{})
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, s := range cfg.Servers {
			if seen[s.BundleID] {
				t.Fatalf("duplicate bundle_id %q", s.BundleID)
			}
			seen[s.BundleID] = true
			if ValidBundleID(s.BundleID) != nil {
				t.Fatalf("invalid bundle_id %q", s.BundleID)
			}
			if _, err := json.Marshal(s); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range cfg.Problems {
			_ = p.Error()
		}
	})
}

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }

// The get_config form carries every field data-structures.md requires,
// with the protocol's defaults where the file set none (a2c-smcp's Server
// validates the answer and drops it otherwise).
func TestGetConfigWireHasEveryRequiredField(t *testing.T) {
	doc := `{"inputs":[{"id":"p","type":"pickString","options":["a"]},{"id":"c","type":"command","command":"date"}],
	"servers":{
		"s": {"type":"stdio","server_parameters":{"command":"x"}},
		"h": {"type":"streamable","server_parameters":{"url":"http://h/mcp"}},
		"h2": {"type":"streamable","server_parameters":{"url":"http://h/mcp2","timeout":12.5,"sse_read_timeout":"PT1M","terminate_on_close":false}},
		"e": {"type":"sse","server_parameters":{"url":"http://h/sse"}},
		"e2": {"type":"sse","server_parameters":{"url":"http://h/sse2","timeout":"PT7S","sse_read_timeout":60}}
	}}`
	cfg, err := Parse([]byte(doc), Options{})
	if err != nil || len(cfg.Problems) != 0 {
		t.Fatalf("%v %v", err, cfg.Problems)
	}
	want := map[string]string{
		"s":  `{"command":"x","args":[],"env":null,"cwd":null,"encoding":"utf-8","encoding_error_handler":"strict"}`,
		"h":  `{"url":"http://h/mcp","headers":null,"timeout":"PT30S","sse_read_timeout":"PT300S","terminate_on_close":true}`,
		"h2": `{"url":"http://h/mcp2","headers":null,"timeout":"PT12.5S","sse_read_timeout":"PT60S","terminate_on_close":false}`,
		"e":  `{"url":"http://h/sse","headers":null,"timeout":5,"sse_read_timeout":300}`,
		"e2": `{"url":"http://h/sse2","headers":null,"timeout":7,"sse_read_timeout":60}`,
	}
	for _, s := range cfg.Servers {
		raw, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var entry struct {
			Params          json.RawMessage `json:"server_parameters"`
			Name            *string         `json:"name"`
			Disabled        *bool           `json:"disabled"`
			ForbiddenTools  []string        `json:"forbidden_tools"`
			ToolMeta        map[string]any  `json:"tool_meta"`
			DefaultToolMeta any             `json:"default_tool_meta"`
		}
		if err := json.Unmarshal(raw, &entry); err != nil {
			t.Fatal(err)
		}
		if string(entry.Params) != want[s.Key] {
			t.Errorf("%s server_parameters = %s\n want %s", s.Key, entry.Params, want[s.Key])
		}
		if entry.Name == nil || entry.Disabled == nil || entry.ForbiddenTools == nil || entry.ToolMeta == nil {
			t.Errorf("%s lacks a base field: %s", s.Key, raw)
		}
		// What we write parses back to the same parameters.
		back, _, err := parseEntry(s.Key, raw)
		if err != nil {
			t.Errorf("re-parse %s: %v", raw, err)
		} else if back.Declared.Timeout != s.Declared.Timeout && s.Declared.Timeout != 0 {
			t.Errorf("%s timeout %v came back as %v", s.Key, s.Declared.Timeout, back.Declared.Timeout)
		}
	}
	var inputs []string
	for _, in := range cfg.Inputs {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(b))
	}
	wantInputs := []string{
		`{"description":"","id":"p","options":[{"label":"a","value":"a"}],"type":"pickString"}`,
		`{"command":"date","description":"","id":"c","type":"command"}`,
	}
	if !slices.Equal(inputs, wantInputs) {
		t.Errorf("inputs = %q\nwant %q", inputs, wantInputs)
	}
}

func TestHosts(t *testing.T) {
	cfg, err := Parse([]byte(`{
  "servers": {"docs": {"type": "stdio", "hosts": ["docs.example", "w.example"], "server_parameters": {"command": "serve"}}},
  "mcpServers": {
    "thief": {"command": "steal", "hosts": ["docs.example"]},
    "other": {"command": "other", "hosts": ["other.example"]},
    "slash": {"command": "x", "hosts": ["a/b"]},
    "esc": {"command": "x", "hosts": ["a\u001bb"]},
    "twice": {"command": "x", "hosts": ["t.example", "t.example"]},
    "empty": {"command": "x", "hosts": [""]}
  }}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(cfg.Servers); !slices.Equal(got, []string{"docs", "other"}) {
		t.Errorf("kept servers = %v, want [docs other]", got)
	}
	if !slices.Equal(cfg.Servers[0].Hosts, []string{"docs.example", "w.example"}) || !slices.Equal(cfg.Servers[1].Hosts, []string{"other.example"}) {
		t.Errorf("hosts = %v, %v", cfg.Servers[0].Hosts, cfg.Servers[1].Hosts)
	}
	want := map[string]string{
		"thief": `host "docs.example" is already owned by server "docs"`,
		"slash": "characters a host cannot have",
		"esc":   "characters a host cannot have",
		"twice": "given twice",
		"empty": "host is empty",
	}
	if len(cfg.Problems) != len(want) {
		t.Fatalf("problems = %v", cfg.Problems)
	}
	for _, p := range cfg.Problems {
		if !strings.Contains(p.Error(), want[p.Entry]) || !strings.Contains(p.Field, "hosts") {
			t.Errorf("problem %v, want %q at hosts", p, want[p.Entry])
		}
	}
}

// landingRoot is taken when it is an absolute directory and reported as a
// problem otherwise (uploads then stay refused).
func TestLandingRoot(t *testing.T) {
	for doc, want := range map[string]string{
		`{"landingRoot": "/srv/uploads/", "mcpServers": {}}`: "/srv/uploads",
		`{"landingRoot": "uploads"}`:                         "",
		`{"landingRoot": "../../etc"}`:                       "",
		`{"landingRoot": 7}`:                                 "",
		`{"mcpServers": {}}`:                                 "",
	} {
		cfg, err := Parse([]byte(doc), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.LandingRoot != want {
			t.Errorf("%s: landing root %q, want %q", doc, cfg.LandingRoot, want)
		}
		bad := strings.Contains(doc, "landingRoot") && want == ""
		if got := len(cfg.Problems) > 0 && cfg.Problems[0].Field == "landingRoot"; got != bad {
			t.Errorf("%s: problems %v", doc, cfg.Problems)
		}
	}
}
