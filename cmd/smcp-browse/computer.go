package main

import (
	"cmp"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/smcp-browse/smcp-browse/computer"
	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// newComputerCmd runs a Computer: the MCP servers of a configuration file
// joined to an office of an SMCP Server.
func newComputerCmd() *cobra.Command {
	var o computerFlags
	cmd := &cobra.Command{
		Use:   "computer --server URL --office ID --name NAME --config FILE",
		Short: "Run a Computer: start the configured MCP servers and serve them to an office",
		Long: `computer starts the MCP servers listed in FILE and joins office ID of the SMCP
Server at URL as computer NAME. It serves the Finder catalog (client:get_finder),
reads of dpe:// and other resources (client:read_resource), the Desktop, tools
and tool calls, the SKILLs of the --skills folders and of the MCP servers'
skill:// resources (client:get_skills, client:get_skill), and tells the office
when documents, windows, tools or SKILLs change.

FILE is either the A2C-SMCP Computer format
  {"servers": {"docs": {"type": "stdio", "server_parameters": {"command": "smcp-browse",
   "args": ["serve-docs", "./docs"]}}}, "inputs": [...]}
or the common form
  {"mcpServers": {"docs": {"command": "smcp-browse", "args": ["serve-docs", "./docs"]},
   "web": {"url": "https://example.com/mcp"}}}.
An entry's "hosts": ["docs.team"] gives it the dpe:// and window:// hosts it
owns: no other server's entries under them are taken (otherwise a host
belongs to the first server that lists it). A bad entry is reported and
skipped; the others still start. ${input:ID} is
taken from A2C_SMCP_<ID>_<bundle_id>, A2C_SMCP_<ID> or the input's default, and
${env:NAME} from the environment (no interactive prompts). A top-level
"landingRoot": "/abs/dir" (or --landing-root) lets agents upload files there
with client:put_blob; without it uploads are refused.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd) },
	}
	f := cmd.Flags()
	f.StringVar(&o.serverURL, "server", "", "SMCP Server URL, e.g. http://127.0.0.1:9000; the nodes of one Server comma-separated (required)")
	f.StringVar(&o.office, "office", "", "office to join (required)")
	f.StringVar(&o.name, "name", "", "this computer's name in the office (required)")
	f.StringVar(&o.cfgPath, "config", "", "MCP server configuration file (required)")
	f.StringVar(&o.token, "token", os.Getenv("SMCP_TOKEN"), "the Server's shared token (default $SMCP_TOKEN)")
	f.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	f.StringVar(&o.logFile, "log-file", "", "write logs to this file instead of stderr")
	f.DurationVar(&o.requestTimeout, "request-timeout", computer.DefaultRequestTimeout, "timeout of each MCP request")
	f.StringVar(&o.a2cVersion, "a2c-version", protocol.Version, "the A2C-SMCP protocol version to speak (pin the Server's when it refuses ours with 4008)")
	f.StringVar(&o.landingRoot, "landing-root", "", "absolute directory that agents' uploads (client:put_blob) land in (default: the configuration's \"landingRoot\"); without one uploads are refused (4019 forbidden)")
	f.StringVar(&o.socketPath, "socket-path", "/socket.io/", "the Server's Socket.IO HTTP path (a Server built on the a2c-smcp SDK may use /smcp)")
	f.StringArrayVar(&o.skillDirs, "skills", nil, "a folder of SKILLs (DIR/NAME/SKILL.md) to offer, watched for changes (repeatable)")
	return cmd
}

// computerFlags are the computer command's flags.
type computerFlags struct {
	serverURL, office, name, cfgPath, token string
	socketPath, a2cVersion, landingRoot     string
	logLevel, logFile                       string
	requestTimeout                          time.Duration
	skillDirs                               []string
}

// run checks the required flags, loads the configuration and runs the
// Computer until the command's context ends.
func (o *computerFlags) run(cmd *cobra.Command) error {
	var missing []string
	for _, f := range []struct{ name, value string }{{"server", o.serverURL}, {"office", o.office}, {"name", o.name}, {"config", o.cfgPath}} {
		if f.value == "" {
			missing = append(missing, "--"+f.name)
		}
	}
	if len(missing) > 0 {
		return usageErrorf("missing required flags: %s (see --help)", strings.Join(missing, ", "))
	}
	log, closeLog, err := serviceLogger(cmd.ErrOrStderr(), o.logFile, o.logLevel)
	if err != nil {
		return err
	}
	defer closeLog()
	cfg, err := o.loadConfig(log)
	if err != nil {
		return err
	}
	c, err := computer.New(cfg, computer.Options{
		Name: o.name, Office: o.office, ServerURL: o.serverURL, Token: o.token,
		Logger: log, RequestTimeout: o.requestTimeout, Version: version, SocketPath: o.socketPath, A2CVersion: o.a2cVersion,
		Uploads:   computer.UploadOptions{LandingRoot: cmp.Or(o.landingRoot, cfg.LandingRoot)},
		SkillDirs: o.skillDirs,
	})
	if err != nil {
		return err
	}
	return c.Run(cmd.Context())
}

// loadConfig reads the MCP server configuration, logging the entries it
// skips; it fails when entries were given and none is usable.
func (o *computerFlags) loadConfig(log *slog.Logger) (config.Config, error) {
	cfg, err := config.Load(o.cfgPath, config.Options{LookupEnv: os.LookupEnv})
	if err != nil {
		return config.Config{}, err
	}
	for _, p := range cfg.Problems {
		log.Error("config entry skipped", "problem", p.Error())
	}
	for _, w := range cfg.Warnings {
		log.Warn("config", "warning", w.Error())
	}
	if len(cfg.Enabled()) == 0 {
		if len(cfg.Problems) > 0 {
			return config.Config{}, fmt.Errorf("%s: no usable MCP server (%d entries skipped, see the log)", o.cfgPath, len(cfg.Problems))
		}
		log.Warn("no enabled MCP server in the configuration", "config", o.cfgPath)
	}
	return cfg, nil
}
