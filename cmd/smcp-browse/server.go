package main

import (
	"fmt"
	"net"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/cluster"
)

// newServerCmd runs the SMCP Server: the Socket.IO router between agents
// and computers.
func newServerCmd() *cobra.Command {
	var (
		listen, token, logLevel, logFile string
		version, redisURL, clusterLink   string
		requestTimeout, clusterTTL       time.Duration
	)
	cmd := &cobra.Command{
		Use:   "server [--listen ADDR] [--token T] [--redis URL]",
		Short: "Run the SMCP Server that routes agents' requests to computers",
		Long: `server runs the A2C-SMCP Server: Socket.IO namespace /smcp, served at
http://ADDR/socket.io/ and http://ADDR/smcp/ (the Python SDK's path).

Clients must send a2c_version in the URL query: the Server speaks one protocol
version (--a2c-version, default ` + protocol.Version + `) and admits the same MAJOR.MINOR
(any patch); others are refused with 4008 naming both versions. When --token is
set, clients must send the token as auth.token. Agents and computers
join offices with server:join_office; the server routes each client:* request to
the computer it names in the caller's office and relays the office's
notifications. It prints the URL it listens on, and stops gracefully on SIGINT
or SIGTERM.

With --redis (or $SMCP_REDIS), every server started with the same Redis is a
node of one Server: offices, names and the one-agent rule hold across nodes,
requests reach a computer on any node and notifications every member. Give
clients all the nodes' URLs, comma-separated (--server URL1,URL2): they move to
the next one when theirs goes away. A node that loses Redis for longer than its
lease (--cluster-ttl) drops its clients and refuses new ones until Redis is back.
Requests between nodes go over direct links between them (--cluster-link),
authenticated with a key the nodes share through Redis; where a node cannot be
dialled they go through Redis.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := protocol.ParseVersion(version); err != nil {
				return fmt.Errorf("--a2c-version: %w", err)
			}
			log, closeLog, err := serviceLogger(cmd.ErrOrStderr(), logFile, logLevel)
			if err != nil {
				return err
			}
			defer closeLog()
			if redisURL != "" {
				cluster.LogRedisClientTo(log)
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return fmt.Errorf("listen on %s: %w", listen, err)
			}
			srv := server.New(server.Options{Token: token, Logger: log, RequestTimeout: requestTimeout, Version: version,
				Redis: redisURL, ClusterTTL: clusterTTL, ClusterLink: clusterLink})
			if err := srv.Connect(cmd.Context()); err != nil {
				_ = ln.Close()
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "smcp-browse server listening on http://%s\n", ln.Addr())
			return srv.Serve(cmd.Context(), ln)
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "127.0.0.1:9000", "address to listen on (port 0 picks a free one)")
	f.StringVar(&token, "token", os.Getenv("SMCP_TOKEN"), "shared token clients must send (default $SMCP_TOKEN; empty: none)")
	f.StringVar(&logLevel, "log-level", "info", "log level: debug, info, warn or error")
	f.StringVar(&logFile, "log-file", "", "write logs to this file instead of stderr")
	f.StringVar(&version, "a2c-version", protocol.Version, "the A2C-SMCP protocol version this Server speaks (clients of the same MAJOR.MINOR are admitted)")
	f.StringVar(&redisURL, "redis", os.Getenv("SMCP_REDIS"), "redis://HOST:PORT/DB (or unix:///PATH?db=N) shared by the nodes of one Server (default $SMCP_REDIS; empty: a single node)")
	f.DurationVar(&clusterTTL, "cluster-ttl", cluster.DefaultTTL, "with --redis: how long a node that stops renewing its lease keeps its sessions")
	f.StringVar(&clusterLink, "cluster-link", "", "with --redis: HOST:PORT where this node listens for the other nodes' direct links (default: the address it reaches Redis from, a free port; off: requests between nodes go through Redis)")
	f.DurationVar(&requestTimeout, "request-timeout", server.DefaultRequestTimeout, "how long a routed request waits for the computer (client:tool_call uses its own timeout)")
	return cmd
}
