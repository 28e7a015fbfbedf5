#!/usr/bin/env bash
# Rebuild the freshdocs4 corpus from pinned Debian 12 (bookworm) packages.
# Usage: bench/freshdocs4/build_corpus.sh [OUT_DIR]   (default: /tmp/freshdocs4/corpus)
# Needs: apt-get (after `apt-get update`), dpkg-deb, man-db + groff-base, col (bsdextrautils), gzip.
# The packages are downloaded, not installed. Man pages are rendered to plain text with
# `man --no-hyphenation --no-justification -l FILE | col -bx` (LC_ALL=C.UTF-8, MANWIDTH=80;
# checked with man-db 2.11.2, groff 1.22.4), so their sha256 may differ with other
# versions; HTML files are copied unchanged.
set -euo pipefail
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../debian_docs.sh"
OUT="${1:-/tmp/freshdocs4/corpus}"
PACKAGES=(
  "tmux=3.3a-3"
  "dnsmasq-base=2.90-4~deb12u2"
  "logrotate=3.21.0-1"
  "exim4-doc-html=4.96-1"
)
MAN=(tmux:man1/tmux.1 dnsmasq-base:man8/dnsmasq.8 logrotate:man8/logrotate.8)
EXIM_PAGES=(ch-retry_configuration ch-log_files ch-the_smtp_transport
  ch-starting_the_daemon_and_the_use_of_network_interfaces ch-smtp_authentication)
start_build "$OUT" "${PACKAGES[@]}"
mkdir -p "$OUT/exim4-doc-html"
render_mans "$OUT" "${MAN[@]}"
for p in "${EXIM_PAGES[@]}"; do
  cp "x/exim4-doc-html/usr/share/doc/exim4-doc-html/spec_html/$p.html" "$OUT/exim4-doc-html/$p.html"
done
list_corpus "$OUT"
