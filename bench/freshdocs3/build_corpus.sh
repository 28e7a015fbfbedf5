#!/usr/bin/env bash
# Rebuild the freshdocs3 corpus from pinned Debian 12 (bookworm) packages.
# Usage: bench/freshdocs3/build_corpus.sh [OUT_DIR]   (default: /tmp/freshdocs3/corpus)
# Needs: apt-get (after `apt-get update`), dpkg-deb, man-db + groff-base, col (bsdextrautils), gzip.
# The packages are downloaded, not installed. Man pages are rendered to plain text with
# `man --no-hyphenation --no-justification -l FILE | col -bx` (LC_ALL=C.UTF-8, MANWIDTH=80;
# checked with man-db 2.11.2, groff 1.22.4), so their sha256 may differ with other
# versions; HTML files are copied unchanged.
set -euo pipefail
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../debian_docs.sh"
OUT="${1:-/tmp/freshdocs3/corpus}"
PACKAGES=(
  "mosquitto=2.0.11-1.2+deb12u2"
  "rsync=3.5.0+ds1-0+deb12u1"
  "unbound=1.17.1-2+deb12u4"
  "bind9-doc=1:9.18.49-1~deb12u3"
)
MAN=(mosquitto:man5/mosquitto.conf.5 mosquitto:man8/mosquitto.8 mosquitto:man1/mosquitto_passwd.1
  mosquitto:man7/mosquitto-tls.7 rsync:man1/rsync.1 rsync:man5/rsyncd.conf.5
  unbound:man5/unbound.conf.5 unbound:man8/unbound.8 unbound:man8/unbound-control.8)
BIND_PAGES=(chapter3 chapter4 chapter5 chapter6 chapter7 reference)
start_build "$OUT" "${PACKAGES[@]}"
mkdir -p "$OUT/bind9-doc"
render_mans "$OUT" "${MAN[@]}"
for p in "${BIND_PAGES[@]}"; do
  cp "x/bind9-doc/usr/share/doc/bind9-doc/arm/$p.html" "$OUT/bind9-doc/$p.html"
done
list_corpus "$OUT"
