#!/usr/bin/env bash
# System tools the test suite compares against, installed the way
# scripts/e2e.sh installs tmux: pdftotext (poppler-utils) is the reference
# for the PDF engine's text (docserver/extract TestPDFTextMatchesPdftotext).
# Installs with apt-get when run as root in CI; elsewhere it says what is
# missing and the test that needs it skips with the same message.
set -euo pipefail

if ! command -v pdftotext >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && [ -n "${CI:-}" ] && command -v apt-get >/dev/null 2>&1; then
    echo "test-deps: pdftotext missing; installing poppler-utils (root in CI)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils >/dev/null
  else
    echo "test-deps: pdftotext not found (apt-get install poppler-utils); the PDF reference test will skip" >&2
  fi
fi
