#!/usr/bin/env bash
# System tools and files the test suite compares against, installed the
# way scripts/e2e.sh installs tmux:
#   - pdftotext (poppler-utils), the reference for the PDF engine's text;
#   - the Debian manuals the PDF tests read from /usr/share/doc (valgrind's
#     397-page manual made by Apache FOP, nettle's, zlib's crc-doc,
#     fontconfig's and shared-mime-info's, made by pdfTeX);
#   - the modules of go.mod whose test PDFs the PDF tests read from the
#     module cache (fpdf's reference PDFs, PDFium's test PDFs in go-pdfium).
# Installs with apt-get when run as root in CI; elsewhere it says what is
# missing and the tests that need it skip with the same message (in CI they
# fail).
set -euo pipefail

need_pkgs=()
command -v pdftotext >/dev/null 2>&1 || need_pkgs+=(poppler-utils)
declare -A manuals=(
  [valgrind]=/usr/share/doc/valgrind/valgrind_manual.pdf.gz
  [nettle-dev]=/usr/share/doc/nettle-dev/nettle.pdf.gz
  [zlib1g-dev]=/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz
  [fontconfig]=/usr/share/doc/fontconfig/fontconfig-user.pdf.gz
  [shared-mime-info]=/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf
)
for pkg in "${!manuals[@]}"; do
  [ -e "${manuals[$pkg]}" ] || need_pkgs+=("$pkg")
done

if [ ${#need_pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && [ -n "${CI:-}" ] && command -v apt-get >/dev/null 2>&1; then
    echo "test-deps: installing ${need_pkgs[*]} (root in CI)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
  else
    echo "test-deps: missing ${need_pkgs[*]} (apt-get install them); the PDF tests that need them will skip" >&2
  fi
fi
for pkg in "${!manuals[@]}"; do
  [ -e "${manuals[$pkg]}" ] || echo "test-deps: ${manuals[$pkg]} is still missing (an image that excludes /usr/share/doc?)" >&2
done

go mod download github.com/go-pdf/fpdf github.com/klippa-app/go-pdfium
