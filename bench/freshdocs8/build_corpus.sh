#!/usr/bin/env bash
# Rebuild the freshdocs8 corpus from pinned Debian 12 (bookworm) packages.
# Usage: bench/freshdocs8/build_corpus.sh [OUT_DIR]   (default: /tmp/freshdocs8/corpus)
# Needs: apt-get (after `apt-get update`), dpkg-deb, man-db + groff-base, col (bsdextrautils), gzip.
# The packages are downloaded, not installed. Man pages are rendered to plain text with
# `man --no-hyphenation --no-justification -l FILE | col -bx` (LC_ALL=C.UTF-8, MANWIDTH=80;
# checked with man-db 2.11.2, groff 1.22.4), so their sha256 may differ with other
# versions; HTML files are copied unchanged.
set -euo pipefail
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../debian_docs.sh"
OUT="${1:-/tmp/freshdocs8/corpus}"
PACKAGES=(
  "zstd=1.5.4+dfsg2-5+deb12u1"
  "cron=3.0pl1-162"
  "borgbackup-doc=1.2.4-1"
)
MAN=(zstd:man1/zstd.1 cron:man5/crontab.5)
start_build "$OUT" "${PACKAGES[@]}"
render_mans "$OUT" "${MAN[@]}"
mkdir -p "$OUT/borgbackup-doc"
cp x/borgbackup-doc/usr/share/doc/borgbackup/html/usage/prune.html "$OUT/borgbackup-doc/prune.html"
list_corpus "$OUT"
