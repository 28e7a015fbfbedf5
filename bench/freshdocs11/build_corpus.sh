#!/usr/bin/env bash
# Rebuild the freshdocs11 corpus from pinned Debian 12 (bookworm) packages.
# Usage: bench/freshdocs11/build_corpus.sh [OUT_DIR]   (default: /tmp/freshdocs11/corpus)
# Needs: apt-get (after `apt-get update`), dpkg-deb, man-db + groff-base, col (bsdextrautils), gzip.
# The packages are downloaded, not installed. Man pages are rendered to plain text with
# `man --no-hyphenation --no-justification -l FILE | col -bx` (LC_ALL=C.UTF-8, MANWIDTH=80;
# checked with man-db 2.11.2, groff 1.22.4), so their sha256 may differ with other
# versions; HTML files are copied unchanged.
set -euo pipefail
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../debian_docs.sh"
OUT="${1:-/tmp/freshdocs11/corpus}"
PACKAGES=(
  "htop=3.2.2-2"
  "mtr-tiny=0.95-1"
  "privoxy=3.0.34-1"
)
MAN=(htop:man1/htop.1 mtr-tiny:man8/mtr.8)
start_build "$OUT" "${PACKAGES[@]}"
render_mans "$OUT" "${MAN[@]}"
mkdir -p "$OUT/privoxy"
cp x/privoxy/usr/share/doc/privoxy/user-manual/filter-file.html "$OUT/privoxy/filter-file.html"
list_corpus "$OUT"
