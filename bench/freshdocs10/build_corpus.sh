#!/usr/bin/env bash
# Rebuild the freshdocs10 corpus from pinned Debian 12 (bookworm) packages.
# Usage: bench/freshdocs10/build_corpus.sh [OUT_DIR]   (default: /tmp/freshdocs10/corpus)
# Needs: apt-get (after `apt-get update`), dpkg-deb, man-db + groff-base, col (bsdextrautils), gzip.
# The packages are downloaded, not installed. Man pages are rendered to plain text with
# `man --no-hyphenation --no-justification -l FILE | col -bx` (LC_ALL=C.UTF-8, MANWIDTH=80;
# checked with man-db 2.11.2, groff 1.22.4), so their sha256 may differ with other
# versions; HTML files are copied unchanged.
set -euo pipefail
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../debian_docs.sh"
OUT="${1:-/tmp/freshdocs10/corpus}"
PACKAGES=(
  "ncdu=1.18-0.2"
  "iperf3=3.12-1+deb12u2"
  "varnish-doc=7.1.1-2+deb12u1"
)
MAN=(ncdu:man1/ncdu.1 iperf3:man1/iperf3.1)
start_build "$OUT" "${PACKAGES[@]}"
render_mans "$OUT" "${MAN[@]}"
mkdir -p "$OUT/varnish-doc"
cp x/varnish-doc/usr/share/doc/varnish/html/users-guide/purging.html "$OUT/varnish-doc/purging.html"
list_corpus "$OUT"
