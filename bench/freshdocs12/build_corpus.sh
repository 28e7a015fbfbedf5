#!/usr/bin/env bash
# Rebuild the freshdocs12 corpus from pinned Debian 12 (bookworm) packages.
# Usage: bench/freshdocs12/build_corpus.sh [OUT_DIR]   (default: /tmp/freshdocs12/corpus)
# Needs: apt-get (after `apt-get update`), dpkg-deb, man-db + groff-base, col (bsdextrautils), gzip.
# The packages are downloaded, not installed. Man pages are rendered to plain text with
# `man --no-hyphenation --no-justification -l FILE | col -bx` (LC_ALL=C.UTF-8, MANWIDTH=80;
# checked with man-db 2.11.2, groff 1.22.4), so their sha256 may differ with other
# versions.
set -euo pipefail
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../debian_docs.sh"
OUT="${1:-/tmp/freshdocs12/corpus}"
PACKAGES=(
  "autossh=1.4g-1+b1"
  "sshfs=3.7.3-1.2~deb12u1"
)
MAN=(autossh:man1/autossh.1 sshfs:man1/sshfs.1)
start_build "$OUT" "${PACKAGES[@]}"
render_mans "$OUT" "${MAN[@]}"
list_corpus "$OUT"
