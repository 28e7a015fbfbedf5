#!/usr/bin/env bash
# Rebuild the freshdocs5 corpus from pinned Debian 12 (bookworm) packages.
# Usage: bench/freshdocs5/build_corpus.sh [OUT_DIR]   (default: /tmp/freshdocs5/corpus)
# Needs: apt-get (after `apt-get update`), dpkg-deb, man-db + groff-base, col (bsdextrautils), gzip.
# The packages are downloaded, not installed. Man pages are rendered to plain text with
# `man --no-hyphenation --no-justification -l FILE | col -bx` (LC_ALL=C.UTF-8, MANWIDTH=80;
# checked with man-db 2.11.2, groff 1.22.4), so their sha256 may differ with other
# versions; HTML files are copied unchanged.
set -euo pipefail
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../debian_docs.sh"
OUT="${1:-/tmp/freshdocs5/corpus}"
PACKAGES=(
  "sudo=1.9.13p3-1+deb12u4"
  "msmtp=1.8.23-1"
  "stunnel4=3:5.68-2+deb12u1"
  "openvpn=2.6.14-0+deb12u2"
)
MAN=(sudo:man5/sudoers.5 msmtp:man1/msmtp.1)
start_build "$OUT" "${PACKAGES[@]}"
render_mans "$OUT" "${MAN[@]}"
mkdir -p "$OUT/stunnel4" "$OUT/openvpn"
cp x/stunnel4/usr/share/doc/stunnel4/stunnel.html "$OUT/stunnel4/stunnel.html"
cp x/openvpn/usr/share/doc/openvpn/openvpn.8.html "$OUT/openvpn/openvpn.8.html"
list_corpus "$OUT"
