#!/usr/bin/env bash
# Rebuild the freshdocs7 corpus from pinned Debian 12 (bookworm) packages.
# Usage: bench/freshdocs7/build_corpus.sh [OUT_DIR]   (default: /tmp/freshdocs7/corpus)
# Needs: apt-get (after `apt-get update`), dpkg-deb, man-db + groff-base, col (bsdextrautils), gzip.
# The packages are downloaded, not installed. Man pages are rendered to plain text with
# `man --no-hyphenation --no-justification -l FILE | col -bx` (LC_ALL=C.UTF-8, MANWIDTH=80;
# checked with man-db 2.11.2, groff 1.22.4), so their sha256 may differ with other
# versions; HTML files are copied unchanged.
set -euo pipefail
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../debian_docs.sh"
OUT="${1:-/tmp/freshdocs7/corpus}"
PACKAGES=(
  "wget=1.21.3-1+deb12u1"
  "fail2ban=1.0.2-2"
  "rsyslog-doc=8.2302.0+dfsg-1"
)
MAN=(wget:man1/wget.1 fail2ban:man5/jail.conf.5)
start_build "$OUT" "${PACKAGES[@]}"
render_mans "$OUT" "${MAN[@]}"
mkdir -p "$OUT/rsyslog-doc"
cp x/rsyslog-doc/usr/share/doc/rsyslog-doc/html/configuration/modules/omfile.html "$OUT/rsyslog-doc/omfile.html"
list_corpus "$OUT"
