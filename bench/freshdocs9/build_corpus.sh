#!/usr/bin/env bash
# Rebuild the freshdocs9 corpus from pinned Debian 12 (bookworm) packages.
# Usage: bench/freshdocs9/build_corpus.sh [OUT_DIR]   (default: /tmp/freshdocs9/corpus)
# Needs: apt-get (after `apt-get update`), dpkg-deb, man-db + groff-base, col (bsdextrautils), gzip.
# The packages are downloaded, not installed. Man pages are rendered to plain text with
# `man --no-hyphenation --no-justification -l FILE | col -bx` (LC_ALL=C.UTF-8, MANWIDTH=80;
# checked with man-db 2.11.2, groff 1.22.4), so their sha256 may differ with other
# versions; HTML files are copied unchanged.
set -euo pipefail
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../debian_docs.sh"
OUT="${1:-/tmp/freshdocs9/corpus}"
PACKAGES=(
  "pv=1.6.20-1"
  "jq=1.6-2.1+deb12u3"
  "supervisor-doc=4.2.5-1"
)
MAN=(pv:man1/pv.1 jq:man1/jq.1)
start_build "$OUT" "${PACKAGES[@]}"
render_mans "$OUT" "${MAN[@]}"
mkdir -p "$OUT/supervisor-doc"
cp x/supervisor-doc/usr/share/doc/supervisor/html/subprocess.html "$OUT/supervisor-doc/subprocess.html"
list_corpus "$OUT"
