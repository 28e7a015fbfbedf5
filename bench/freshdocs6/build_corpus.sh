#!/usr/bin/env bash
# Rebuild the freshdocs6 corpus from pinned Debian 12 (bookworm) packages.
# Usage: bench/freshdocs6/build_corpus.sh [OUT_DIR]   (default: /tmp/freshdocs6/corpus)
# Needs: apt-get (after `apt-get update`), dpkg-deb, man-db + groff-base, col (bsdextrautils), gzip.
# The packages are downloaded, not installed. Man pages are rendered to plain text with
# `man --no-hyphenation --no-justification -l FILE | col -bx` (LC_ALL=C.UTF-8, MANWIDTH=80;
# checked with man-db 2.11.2, groff 1.22.4), so their sha256 may differ with other
# versions; HTML files are copied unchanged.
set -euo pipefail
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../debian_docs.sh"
OUT="${1:-/tmp/freshdocs6/corpus}"
PACKAGES=(
  "fetchmail=6.4.37-1"
  "smartmontools=7.3-1+b1"
  "mutt=2.2.12-0.1~deb12u2"
)
MAN=(fetchmail:man1/fetchmail.1 smartmontools:man5/smartd.conf.5)
start_build "$OUT" "${PACKAGES[@]}"
render_mans "$OUT" "${MAN[@]}"
mkdir -p "$OUT/mutt"
cp x/mutt/usr/share/doc/mutt/html/gettingstarted.html "$OUT/mutt/gettingstarted.html"
list_corpus "$OUT"
