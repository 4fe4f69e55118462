#!/usr/bin/env bash
# End-to-end run of the terminal browser, as a user meets it: the real binary
# (`smcp-browse --demo --docs DIR`) in a detached tmux session at 120x40,
# driven with send-keys, with capture-pane checked at every step (polled with
# a deadline). It filters the catalog, opens a document, a page with a table
# and an element, goes back, opens the help, jumps through the document's
# outline, then adds and edits files in the folder and checks the catalog
# shows each change (goal: under 3 s), follows a link to another document and
# back, runs a content search and opens the matching page, and quits with
# q, checking the process exited 0 and left the terminal sane. A last step
# opens a Go file and a .txt full of Markdown look-alikes and checks their
# tabs and text show as they are, and jumps through the outline of Go's
# doc/godebug.md to a release heading whose words earlier paragraphs
# repeat, checking the view starts at the heading line itself.
#
#   scripts/e2e.sh            (make e2e builds bin/smcp-browse first)
#   BIN=path/to/smcp-browse scripts/e2e.sh
#
# Prints the figures it measured (start -> first catalog frame, keypress ->
# frame, file change -> catalog). On failure it prints the last capture and
# the log tail and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${BIN:-bin/smcp-browse}
COLS=120
ROWS=40
# How long a file change may take to reach the screen before the run
# fails: generous, for a loaded machine. The figures printed at the end are
# the measured times (the browser's goal is under 3 s).
CHANGE_LIMIT_MS=${CHANGE_LIMIT_MS:-20000}

scripts/sysdeps.sh e2e   # tmux: apt-get as root, else the command to run
[ -x "$BIN" ] || { echo "e2e: $BIN not found; run make build (or make e2e)" >&2; exit 1; }
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/smcp-e2e.XXXXXX")
docs=$tmp/docs
cp -R testdata/corpus "$docs"
sock=smcp-e2e-$$
t() { tmux -L "$sock" "$@"; }
server_pid=""
computer_pid=""
cleanup() {
  t kill-server >/dev/null 2>&1 || true
  for pid in $computer_pid $server_pid; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

now_ms() { date +%s%3N; }
last=""
capture() { last=$(t capture-pane -p 2>/dev/null || true); }  # the current window

fail() {
  echo "e2e: FAIL: $*" >&2
  echo "---- last capture (${COLS}x${ROWS}) ----" >&2
  printf '%s\n' "$last" >&2
  echo "---- log tail ----" >&2
  tail -n 30 "$tmp/state/smcp-browse/smcp-browse.log" >&2 2>/dev/null || true
  exit 1
}

# wait_for TEXT [TIMEOUT_MS]: poll the screen until it shows TEXT; prints
# nothing, sets waited_ms.
waited_ms=0
wait_for() {
  local text=$1 limit=${2:-10000} start
  start=$(now_ms)
  while :; do
    capture
    if grep -qF -- "$text" <<<"$last"; then
      waited_ms=$(( $(now_ms) - start ))
      return 0
    fi
    if (( $(now_ms) - start > limit )); then
      fail "\"$text\" not on screen within ${limit} ms"
    fi
    sleep 0.01
  done
}

# wait_gone TEXT [TIMEOUT_MS]: poll until the screen no longer shows TEXT.
wait_gone() {
  local text=$1 limit=${2:-10000} start
  start=$(now_ms)
  while :; do
    capture
    grep -qF -- "$text" <<<"$last" || return 0
    (( $(now_ms) - start > limit )) && fail "\"$text\" still on screen after ${limit} ms"
    sleep 0.01
  done
}

# key KEYS... then wait for TEXT: send keys and measure keypress -> frame.
declare -a figures=()
press() {
  local label=$1 text=$2; shift 2
  local start
  start=$(now_ms)
  t send-keys "$@"
  wait_for "$text"
  local ms=$(( $(now_ms) - start ))
  figures+=("$label: ${ms} ms")
  echo "e2e: ok  $label (${ms} ms)"
}

# The program runs in a shell that records its exit status and the
# terminal's settings after it ends, then waits to be killed.
mkdir -p "$tmp/state"
cat >"$tmp/run.sh" <<RUN
#!/bin/sh
stty -a > "$tmp/stty-before" 2>&1
while [ ! -e "$tmp/go" ]; do sleep 0.01; done  # the output is being recorded
XDG_STATE_HOME="$tmp/state" TERM=xterm-256color "$BIN" --demo --docs "$docs"
echo \$? > "$tmp/exit"
stty -a > "$tmp/stty-after" 2>&1
exec sleep 600
RUN
chmod +x "$tmp/run.sh"

start=$(now_ms)
t new-session -d -s e2e -x "$COLS" -y "$ROWS" "$tmp/run.sh"
t pipe-pane -t e2e -o "cat >> $tmp/raw"
touch "$tmp/go"
wait_for "1–12 of 12" 20000
startup=$(( $(now_ms) - start ))
figures+=("start -> first catalog frame: ${startup} ms")
echo "e2e: ok  catalog of 12 documents (${startup} ms after start)"
grep -qF "connected" <<<"$last" || fail "status bar does not say connected"

# Filter by keyword: / opens the field, the query goes to the Computer.
press "filter field opens" "enter apply" /
press "filter q3 (debounced query)" "1–1 of 1" q 3
wait_gone "Budget 2026"
press "filter applied" "keywords: q3" Enter

# Open the document: its metadata and page list.
press "open document" "Operations Report" Enter
wait_for "Revenue"
wait_for "Hiring"

# Open page 2 ("Revenue"), which holds a table.
press "open page with a table" "1,380" j Enter
wait_for "September"
wait_for "Page 2/4"

# Open an element from the element list: the table.
press "element list" "Elements (5)" e
press "open element" "── Content" j Enter
wait_for "tbl-1-1"

# Back to the page, then to the document. (h is Back too; two Escapes sent
# together would read as alt+esc.)
press "back to page" "1,380" Escape
wait_gone "── Content"
press "back to document" "Hiring" h h
wait_gone "Page 2/4"

# Help, and any key closes it.
press "help" "press any key to close" "?"
press "help closed" "Hiring" Escape
wait_gone "press any key to close"
sleep 0.2 # an Escape and the next key sent together read as alt+key

# The document's outline: T lists every page's headings; choosing one opens
# its page there, and the status bar says where the view is.
press "document outline" "Outline · Q3 Operations Report" T
t send-keys -l hiring
press "outline jump" "§ Hiring" Enter
wait_for "Page 4/4"
press "back to the document" "Pages  1–4 of 4" Escape
sleep 0.2

# Back to the catalog and clear the filter.
press "back to catalog" "1–1 of 1" Escape
press "clear filter" "1–12 of 12" / C-u Enter

# A new file appears in the catalog.
cat >"$docs/notes/e2e-fresh.md" <<'MD'
# Freshly Written Notes

Written by the end-to-end test while the browser was open.
MD
change_start=$(now_ms)
wait_for "1–13 of 13" "$CHANGE_LIMIT_MS"
wait_for "Freshly Written Notes" "$CHANGE_LIMIT_MS"
ms=$(( $(now_ms) - change_start ))
figures+=("new file -> catalog: ${ms} ms")
echo "e2e: ok  new file in the catalog (${ms} ms)"

# An edited file's new title shows.
sed -i.bak 's/^title: Q3 Operations Report/title: Q3 Operations Review/' "$docs/reports/q3-report.md"
rm -f "$docs/reports/q3-report.md.bak"
change_start=$(now_ms)
wait_for "Q3 Operations Review" "$CHANGE_LIMIT_MS"
ms=$(( $(now_ms) - change_start ))
figures+=("edited file -> catalog: ${ms} ms")
echo "e2e: ok  edited title in the catalog (${ms} ms)"

# A removed file leaves the catalog.
rm "$docs/data/inventory.tsv"
change_start=$(now_ms)
wait_for "1–12 of 12" "$CHANGE_LIMIT_MS"
wait_gone "inventory" "$CHANGE_LIMIT_MS"
ms=$(( $(now_ms) - change_start ))
figures+=("removed file -> catalog: ${ms} ms")
echo "e2e: ok  removed file left the catalog (${ms} ms)"

# Links: a page that links to another document by a relative path and an
# anchor; L lists the links, enter follows, the breadcrumbs say so, and
# esc comes back with the way forward offered.
cat >"$docs/notes/link-hub.md" <<'MD'
# Link hub

Read the [quarterly review](../reports/q3-report.md#hiring) first.
MD
wait_for "1–13 of 13" "$CHANGE_LIMIT_MS"
press "filter the link hub" "1–1 of 1" / h u b Enter
press "open the link hub" "Pages  1–1 of 1" Enter
press "open its page" "Page 1/1  Link hub" Enter
press "links of the page" "Links on page 1/1" L
press "follow a link to another document" "↪ Q3 Operations Review · p. 4/4" Enter
wait_for "§ Hiring"
press "back from the link" "Page 1/1  Link hub" Escape
wait_for "(alt+→)"
sleep 0.2
press "back to the document" "Pages  1–1 of 1" Escape
sleep 0.2
press "back to the catalog" "1–1 of 1" Escape
sleep 0.2
press "clear the filter" "1–13 of 13" / C-u Enter

# Content search through the protocol (client:search_finder): the
# matching line of a PDF, and enter opens its page with the match
# highlighted.
press "content search" "search for:" F
t send-keys -l approval
press "search runs" "done: 13 documents searched" Enter
wait_for "Employee Handbook"
press "open the match" "match 1/1 “approval”" Enter
wait_for "Page 2/3  Working hours"
press "clear the highlight" "Overtime needs written approval" Escape
sleep 0.2
press "back to the results" "done: 13 documents searched" Escape
sleep 0.2
press "back to the catalog from search" "1–13 of 13" Escape

# Quit: the program exits 0, the alternate screen is off, the cursor is
# visible, the terminal is back in cooked mode with echo, and the document
# server child is gone.
t send-keys -t e2e q
deadline=$(( $(now_ms) + 10000 ))
while [ ! -s "$tmp/exit" ]; do
  (( $(now_ms) > deadline )) && { capture; fail "the program did not exit within 10 s of q"; }
  sleep 0.02
done
capture
code=$(cat "$tmp/exit")
[ "$code" = 0 ] || fail "exit status $code"
while [ ! -s "$tmp/stty-after" ]; do sleep 0.01; done
[ "$(t display -p -t e2e '#{alternate_on}')" = 0 ] || fail "alternate screen still on after exit"
[ "$(t display -p -t e2e '#{cursor_flag}')" = 1 ] || fail "cursor still hidden after exit"
for flag in icanon echo; do
  grep -qE "(^| )$flag( |$)" "$tmp/stty-after" || fail "terminal left without $flag: $(cat "$tmp/stty-after")"
done
deadline=$(( $(now_ms) + 5000 ))
while pgrep -f "serve-docs $docs" >/dev/null; do
  (( $(now_ms) > deadline )) && fail "the document server is still running after exit"
  sleep 0.02
done
echo "e2e: ok  quit: exit 0, terminal restored, children gone"
# Before its first screen the browser said what it waited for, on the
# terminal's own screen, and erased the line afterwards.
grep -qF "smcp-browse: starting the demo; the document server reads $docs" "$tmp/raw" ||
  fail "no 'starting the demo' line before the first screen"
grep -qF "smcp-browse: starting" <<<"$last" && fail "the 'starting' line is left on the terminal"
echo "e2e: ok  start: said what it waited for, then erased it"

# ---- Remote form: a Server and a Computer run as their own processes; the
# browser attaches with --server/--office and no --computer, so it opens on
# the office's computers and follows them entering and leaving.
"$BIN" server --listen 127.0.0.1:0 --log-file "$tmp/server.log" >"$tmp/server.out" &
server_pid=$!
deadline=$(( $(now_ms) + 10000 ))
until url=$(grep -o 'http://[0-9.:]*' "$tmp/server.out" 2>/dev/null); do
  (( $(now_ms) > deadline )) && fail "smcp-browse server printed no URL"
  sleep 0.02
done
cat >"$tmp/computer.json" <<JSON
{"mcpServers": {"files": {"command": "$BIN", "args": ["serve-docs", "$docs", "--host", "remote.docs", "--log-file", "$tmp/docs.log"]}}}
JSON
cat >"$tmp/run-remote.sh" <<RUN
#!/bin/sh
XDG_STATE_HOME="$tmp/state" SMCP_SERVER="$url" SMCP_OFFICE=e2e TERM=xterm-256color "$BIN"
echo \$? > "$tmp/exit-remote"
exec sleep 600
RUN
chmod +x "$tmp/run-remote.sh"
t new-window -t e2e -n remote "$tmp/run-remote.sh"
t select-window -t e2e:remote
wait_for "No computer has joined this office yet"
echo "e2e: ok  remote: the office's computers (none yet)"
"$BIN" computer --server "$url" --office e2e --name far-laptop --config "$tmp/computer.json" --log-file "$tmp/computer.log" &
computer_pid=$!
change_start=$(now_ms)
wait_for "far-laptop"
figures+=("remote: computer joins -> list: $(( $(now_ms) - change_start )) ms")
echo "e2e: ok  remote: far-laptop entered the office"
press "remote: open the computer's catalog" "of 13" Enter
wait_for "Q3 Operations Review"
press "remote: back to computers" "far-laptop" h
kill "$computer_pid"; wait "$computer_pid" 2>/dev/null || true
change_start=$(now_ms)
wait_for "No computer has joined this office yet"
figures+=("remote: computer leaves -> list: $(( $(now_ms) - change_start )) ms")
echo "e2e: ok  remote: far-laptop left the office"
t send-keys -t e2e:remote q
deadline=$(( $(now_ms) + 10000 ))
while [ ! -s "$tmp/exit-remote" ]; do
  (( $(now_ms) > deadline )) && { capture; fail "the remote browser did not exit within 10 s of q"; }
  sleep 0.02
done
[ "$(cat "$tmp/exit-remote")" = 0 ] || fail "remote browser exit status $(cat "$tmp/exit-remote")"
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
echo "e2e: ok  remote: quit"

# ---- Faithful content: a Go file and a .txt full of Markdown look-alikes,
# in their own folder. Tabs must show as indentation (no vanishing), and
# plain text must show literally in the rendered and the text views.
fid=$tmp/fidelity
mkdir -p "$fid"
cp testdata/fidelity/source/addr2line-main.go "$fid/main.go"
printf 'Traps\n\nUse <name> as placeholder, a*b*c math, _under_\n# not a heading\n1) not a list\n    indented four\n\tTabbed\tcolumns\n' >"$fid/traps.txt"
touch -d '2026-01-01 00:00' "$fid/main.go"   # the catalog lists newest first: traps.txt, main.go, godebug.md
goroot=$(go env GOROOT 2>/dev/null || true)
[ -f "$goroot/doc/godebug.md" ] || fail "no doc/godebug.md under GOROOT ($goroot): the outline step reads it"
cp "$goroot/doc/godebug.md" "$fid/godebug.md"
touch -d '2025-06-01 00:00' "$fid/godebug.md"
cat >"$tmp/run-fidelity.sh" <<RUN
#!/bin/sh
XDG_STATE_HOME="$tmp/state" TERM=xterm-256color "$BIN" --demo --docs "$fid"
echo \$? > "$tmp/exit-fidelity"
exec sleep 600
RUN
chmod +x "$tmp/run-fidelity.sh"
t new-window -t e2e -n fidelity "$tmp/run-fidelity.sh"
t select-window -t e2e:fidelity
wait_for "1–3 of 3" 20000
press "fidelity: open traps.txt" "Lines 1–7" Enter
press "fidelity: rendered .txt page" "a*b*c math" Enter
for text in "Use <name> as placeholder, a*b*c math, _under_" "# not a heading" "1) not a list" "    indented four" "        Tabbed  columns"; do
  wait_for "$text"
done
echo "e2e: ok  fidelity: the .txt shows literally when rendered"
press "fidelity: .txt as plain text" "plain text" m m
wait_for "        Tabbed  columns"
echo "e2e: ok  fidelity: the .txt's tabs are expanded in the text view"
press "fidelity: back to the catalog" "1–3 of 3" h h
press "fidelity: open main.go" "Lines 1–" j Enter
press "fidelity: rendered Go page" "addr2line" Enter
wait_for "//      go tool addr2line binary"
wait_for '        "bufio"'
echo "e2e: ok  fidelity: Go source keeps its tab indentation on screen"

# A long real Markdown document's outline: "Go 1.21" is named by paragraphs
# of the "Go 1.22" section above its heading; the jump must start the view
# at the heading line itself, not at the first line that names it.
press "outline: back to the catalog" "1–3 of 3" h h
press "outline: open godebug.md" "Pages  1–5 of 5" j Enter
press "outline: the document's outline" "Outline · Go, Backwards Compatibility, and GODEBUG" T
t send-keys -l "go 1.21"
press "outline: jump to Go 1.21" "§ Go 1.21" Enter
wait_for "Page 5/5"
top=$(sed -n 3p <<<"$last" | sed 's/^ *//; s/ *$//')
[ "$top" = "### Go 1.21" ] || fail "the outline's Go 1.21 starts the view at \"$top\", not at its heading"
echo "e2e: ok  outline: the jump lands on the heading line of a long real document"
t send-keys -t e2e:fidelity q
deadline=$(( $(now_ms) + 10000 ))
while [ ! -s "$tmp/exit-fidelity" ]; do
  (( $(now_ms) > deadline )) && { capture; fail "the fidelity browser did not exit within 10 s of q"; }
  sleep 0.02
done
[ "$(cat "$tmp/exit-fidelity")" = 0 ] || fail "fidelity browser exit status $(cat "$tmp/exit-fidelity")"

echo "e2e: PASS"
printf '  %s\n' "${figures[@]}"
