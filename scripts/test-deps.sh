#!/usr/bin/env bash
# What the test suite compares against, before any test runs:
#   - the system tools and files (pdftotext, the Debian PDF manuals,
#     redis-server, script(1)), through scripts/sysdeps.sh: apt-get as root,
#     with or without CI; otherwise it stops at once with the command to run;
#   - the modules of go.mod whose test PDFs the PDF tests read from the
#     module cache (fpdf's reference PDFs, PDFium's test PDFs in go-pdfium).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/sysdeps.sh test
${GO:-go} mod download github.com/go-pdf/fpdf github.com/klippa-app/go-pdfium
