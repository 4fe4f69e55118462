#!/usr/bin/env bash
# The system tools and files each suite needs, installed one way for all of
# them: as root with apt-get (with or without CI); otherwise it stops at once
# with the exact command to run, before any test has started.
#
#   scripts/sysdeps.sh test     (make test: pdftotext, the Debian PDF manuals
#                                the PDF tests read, redis-server, script(1))
#   scripts/sysdeps.sh redis    (make cluster, make soak: redis-server)
#   scripts/sysdeps.sh e2e      (make e2e: tmux)
#   scripts/sysdeps.sh interop  (make interop: python3's venv)
#
# Several suites may be named at once. SMCP_SYSDEPS_DRYRUN=1 prints what
# would be installed and exits (a test of this script uses it).
set -euo pipefail

# need PKG CHECK...: PKG is missing when CHECK (a command) fails.
missing=()
need() {
  local pkg=$1; shift
  "$@" >/dev/null 2>&1 || missing+=("$pkg")
}
has() { command -v "$1"; }
file() { [ -e "$1" ]; }
# deb_installed PKG: PKG is installed, on a system with dpkg (elsewhere the
# tool that needs it says what is missing).
deb_installed() {
  command -v dpkg-query || return 0
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}

for suite in "$@"; do
  case $suite in
  test)
    # pdftotext and pdftohtml: the reference for the PDF engine's text.
    need poppler-utils has pdftotext
    need poppler-utils has pdftohtml
    # The Debian manuals the PDF tests read: valgrind's (Apache FOP),
    # nettle's, zlib's crc-doc, fontconfig's and shared-mime-info's (pdfTeX).
    need valgrind file /usr/share/doc/valgrind/valgrind_manual.pdf.gz
    need nettle-dev file /usr/share/doc/nettle-dev/nettle.pdf.gz
    need zlib1g-dev file /usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz
    need fontconfig file /usr/share/doc/fontconfig/fontconfig-user.pdf.gz
    need shared-mime-info file /usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf
    # script(1) for the terminal tests, and the cluster tests' Redis.
    need bsdutils has script
    need redis-server has redis-server
    ;;
  redis)
    need redis-server has redis-server
    ;;
  e2e)
    need tmux has tmux
    ;;
  interop)
    # Debian ships venv's pip bootstrap (ensurepip) apart, in python3-venv.
    need python3-venv deb_installed python3-venv
    ;;
  *)
    echo "sysdeps: unknown suite $suite (test, redis, e2e, interop)" >&2
    exit 2
    ;;
  esac
done

[ ${#missing[@]} -eq 0 ] && exit 0
# One package may be named by several checks.
mapfile -t pkgs < <(printf '%s\n' "${missing[@]}" | sort -u)

if [ "${SMCP_SYSDEPS_DRYRUN:-}" = 1 ]; then
  echo "${pkgs[*]}"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "sysdeps: missing ${pkgs[*]} (Debian package names); install them with this system's package manager" >&2
  exit 1
fi
if [ "$(id -u)" != 0 ]; then
  echo "sysdeps: missing ${pkgs[*]}; install them first (as root), then run make again:" >&2
  echo "  sudo apt-get install -y ${pkgs[*]}" >&2
  exit 1
fi

echo "sysdeps: installing ${pkgs[*]}"
apt-get update -qq
# --reinstall: a package may be installed with a file the tests read
# deleted (a manual under /usr/share/doc); it installs the others as usual.
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends --reinstall "${pkgs[@]}" >/dev/null
# Debian's redis-server package starts a system instance on 6379; the tests
# run their own servers on free ports and need none.
if printf '%s\n' "${pkgs[@]}" | grep -qx redis-server && command -v systemctl >/dev/null 2>&1; then
  systemctl disable --now redis-server >/dev/null 2>&1 || true
fi

# What is still missing after the install is an error: a test would fail on it.
left=$(SMCP_SYSDEPS_DRYRUN=1 "$0" "$@")
if [ -n "$left" ]; then
  echo "sysdeps: still missing after apt-get install: $left (an image that excludes /usr/share/doc?)" >&2
  exit 1
fi
