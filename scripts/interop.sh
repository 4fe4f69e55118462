#!/usr/bin/env bash
# Interop scenarios with the official A2C-SMCP Python SDK (a2c-smcp, pinned in
# interop/requirements.txt) as the peer; see docs/interop.md.
#   1. official Python Agent  -> our Server -> our Computer (+ serve-docs)
#   2. our Agent and the official Python Agent -> the official Python Server -> our Computer
#   3. official Python Computer (+ a Python window:// MCP server) -> our Server <- our Agent
# Scenarios 1 and 2 also run interop/official_agent_04.py (the events of the
# 0.4 line: get_config, get_resources, the SKILL channel of our Computer's
# --skills folder with a live notify:update_skills, blob codes, unknown tool,
# desktop, an image by blob handle, put_blob into the Computer's landing
# root); in scenario 3 our Agent lists and reads the official Computer's
# user SKILL and reads an image by blob handle from it.
# Creates .venv (git-ignored) when missing, installs the pinned requirements,
# needs bin/smcp-browse (make interop builds it). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${BIN:-$ROOT/bin/smcp-browse}
VENV=${VENV:-$ROOT/.venv}
PY=$VENV/bin/python
REQ=$ROOT/interop/requirements.txt
STEP_TIMEOUT=${STEP_TIMEOUT:-90}

[ -x "$BIN" ] || { echo "interop: $BIN is missing (run make build)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "interop: python3 (>= 3.11) is required" >&2; exit 1; }

# --- the pinned Python peers ---------------------------------------------------
if [ ! -x "$PY" ]; then
  scripts/sysdeps.sh interop   # python3-venv: apt-get as root, else the command to run
  python3 -m venv "$VENV" || { rm -rf "$VENV"; echo "interop: python3 -m venv $VENV failed" >&2; exit 1; }
fi
stamp=$VENV/.interop-requirements
if ! cmp -s "$REQ" "$stamp" 2>/dev/null; then
  "$PY" -m pip install --quiet --disable-pip-version-check -r "$REQ"
  cp "$REQ" "$stamp"
fi
"$PY" - <<'PYV'
import sys
from importlib.metadata import version
import a2c_smcp
print(f"interop: a2c-smcp {version('a2c-smcp')} (protocol {a2c_smcp.PROTOCOL_VERSION}), python-socketio {version('python-socketio')},"
      f" mcp {version('mcp')}, uvicorn {version('uvicorn')}, Python {sys.version.split()[0]}")
PYV

TMP=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT

GOAGENT=$TMP/goagent
go build -o "$GOAGENT" ./interop/goagent

# A temp copy of the corpus, and a Computer configuration with our document
# server and the Python window:// server.
cp -r "$ROOT/testdata/corpus" "$TMP/corpus"
cat > "$TMP/computer.json" <<JSON
{"servers": {
  "docs": {"type": "stdio", "server_parameters": {"command": "$BIN", "args": ["serve-docs", "$TMP/corpus"]}},
  "win": {"type": "stdio", "server_parameters": {"command": "$PY", "args": ["$ROOT/interop/window_server.py"]}}
}}
JSON

# A folder of SKILLs for our Computer (--skills).
mkdir -p "$TMP/skills/interop-skill/scripts"
cat > "$TMP/skills/interop-skill/SKILL.md" <<'MD'
---
name: interop-skill
description: Say hello from the interop run
license: MIT
allowed-tools: Read
tags: [interop, demo]
---
# Interop skill

Run scripts/hello.sh.
MD
echo 'echo hello' > "$TMP/skills/interop-skill/scripts/hello.sh"
echo 'TOKEN=not-for-agents' > "$TMP/skills/interop-skill/.skillenv"

PASSED=0
FAILED=0
pass() { PASSED=$((PASSED + 1)); echo "interop: PASS $1"; }
fail() { FAILED=$((FAILED + 1)); echo "interop: FAIL $1"; }

# wait_for FILE PATTERN SECONDS: wait until FILE has a line matching PATTERN.
wait_for() {
  local deadline=$((SECONDS + $3))
  until grep -q -- "$2" "$1" 2>/dev/null; do
    if [ $SECONDS -ge "$deadline" ]; then
      echo "interop: no \"$2\" in $1 within $3 s; it says:" >&2
      tail -n 20 "$1" >&2 || true
      return 1
    fi
    sleep 0.1
  done
}

# start NAME CMD...: run CMD in the background, output to $TMP/NAME.log.
start() {
  local name=$1; shift
  "$@" >"$TMP/$name.log" 2>&1 &
  PIDS+=($!)
}

# stop_all: stop what start started (between scenarios).
stop_all() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  PIDS=()
}

# our_server NAME: start our Server on a free port; sets URL.
our_server() {
  start "$1" "$BIN" server --listen 127.0.0.1:0
  wait_for "$TMP/$1.log" "listening on http://" 20
  URL=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$TMP/$1.log" | head -n 1)
}

# our_computer NAME URL [SOCKET_PATH]: start our Computer pc-go in office
# interop; uploads land in $TMP/landing-NAME.
our_computer() {
  start "$1" "$BIN" computer --server "$2" --socket-path "${3:-/socket.io/}" --office interop --name pc-go \
    --config "$TMP/computer.json" --skills "$TMP/skills" --log-level info --landing-root "$TMP/landing-$1"
  wait_for "$TMP/$1.log" 'msg="joined office"' 30
  # let both MCP servers come up (the Finder catalog and the windows)
  wait_for "$TMP/$1.log" 'server=win' 30
}

step() { # step NAME CMD...: run a check program with a time limit
  local name=$1; shift
  local start=$SECONDS
  if timeout "$STEP_TIMEOUT" "$@" >"$TMP/step.log" 2>&1; then
    grep -v '日志系统' "$TMP/step.log" | grep -v ' - INFO - ' || true
    pass "$name ($((SECONDS - start)) s)"
  else
    cat "$TMP/step.log"
    fail "$name"
  fi
}

echo "== scenario 1: official Python Agent -> our Server -> our Computer"
if our_server s1-server && our_computer s1-computer "$URL"; then
  step "scenario 1 (socketio_path /socket.io)" "$PY" interop/official_agent.py --server "$URL" --computer pc-go --path /socket.io
  step "scenario 1 (socketio_path /smcp)" "$PY" interop/official_agent.py --server "$URL" --computer pc-go --path /smcp --name py-agent-smcp
  step "scenario 1: 0.4 events (official Agent -> our Server -> our Computer)" "$PY" interop/official_agent_04.py --server "$URL" --computer pc-go \
    --landing-root "$TMP/landing-s1-computer" --skills-dir "$TMP/skills"
else
  fail "scenario 1: start-up"
fi
stop_all

echo "== scenario 2: our Agent / official Agent -> official Python Server (socketio_path /smcp) -> our Computer"
start s2-server "$PY" interop/host_server.py --port 0 --path /smcp
if wait_for "$TMP/s2-server.log" '^READY ' 30; then
  URL=http://127.0.0.1:$(sed -n 's/^READY \([0-9]*\)$/\1/p' "$TMP/s2-server.log" | head -n 1)
  if our_computer s2-computer "$URL" /smcp; then
    # Both speak 0.4.0: our Computer joined with its own version, no retry
    # (versioning.md forbids switching to the Server's version silently).
    pass "scenario 2: our Computer joined the official Server speaking a2c_version 0.4.0"
    step "scenario 2: tools, fs_tree, desktop, Finder not routed" "$GOAGENT" --server "$URL" --path /smcp --computer pc-go \
      --tool fs_tree --args '{"path":"."}' --tool-timeout 7.5s --want-tool-text README.md --want-window 'Interop status' \
      --finder not-routed --want-version 0.4.0
    step "scenario 2: window change notification" "$GOAGENT" --server "$URL" --path /smcp --computer pc-go --name go-agent-2 \
      --tool bump --want-tool-text counter=1 --want-window 'Interop status' --want-after-update 'counter: 1'
    step "scenario 2: 0.4 events (official Agent -> official Server -> our Computer)" "$PY" interop/official_agent_04.py \
      --server "$URL" --path /smcp --computer pc-go --landing-root "$TMP/landing-s2-computer" --skills-dir "$TMP/skills"
    step "scenario 2: our Agent reads get_config/get_resources through the official Server" "$GOAGENT" --server "$URL" --path /smcp \
      --computer pc-go --name go-agent-3 --tool echo --args '{"text":"hi"}' --want-tool-text hi --want-window 'Interop status' \
      --want-blob-bytes 700000 --want-config docs,win --want-resources 'win=window://interop.example/legacy?priority=95' \
      --want-desktop-order window://interop.example/status,window://interop.example/log,window://interop.example/legacy
  else
    fail "scenario 2: our Computer did not join the official Server"
  fi
else
  fail "scenario 2: the official Server did not start"
fi
stop_all

echo "== scenario 3: official Python Computer -> our Server <- our Agent"
if our_server s3-server; then
  start s3-computer "$PY" interop/py_computer.py --server "$URL" --office interop --name py-computer
  if wait_for "$TMP/s3-computer.log" '^READY$' 60; then
    step "scenario 3: tools, desktop, change notification, Finder unsupported" "$GOAGENT" --server "$URL" --computer py-computer \
      --tool bump --want-tool-text counter=1 --want-window 'Interop status' --want-after-update 'counter: 1' --finder unsupported
    step "scenario 3: our Agent reads the official Computer's get_config/get_resources/desktop" "$GOAGENT" --server "$URL" \
      --computer py-computer --name go-agent-3 --tool echo --args '{"text":"hi"}' --want-tool-text hi --want-window 'Interop status' \
      --want-blob-bytes 700000 --want-config win --want-resources 'win=window://interop.example/legacy?priority=95' \
      --want-desktop-order window://interop.example/status,window://interop.example/log,window://interop.example/legacy \
      --want-skill 'py-hello=# Hello from Python'
  else
    fail "scenario 3: the official Computer did not join our Server"
  fi
else
  fail "scenario 3: start-up"
fi
stop_all

echo "interop: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
