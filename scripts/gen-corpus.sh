#!/usr/bin/env bash
# Regenerate testdata/corpus: the Go generator writes Markdown, text, Go,
# CSV, TSV, XLSX and PDF; python-docx and python-pptx (pinned, in a venv)
# write the DOCX and PPTX files. The generated files are committed; tests
# never run this.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-testdata/corpus}
go run ./cmd/corpusgen -out "$out"
venv=${TMPDIR:-/tmp}/smcp-corpus-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet python-docx==1.2.0 python-pptx==1.0.2
fi
"$venv/bin/python" scripts/gen-corpus-office.py "$out"
