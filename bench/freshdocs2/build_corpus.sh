#!/usr/bin/env bash
# Rebuild the freshdocs2 corpus from pinned Debian 12 (bookworm) packages.
# Usage: bench/freshdocs2/build_corpus.sh [OUT_DIR]   (default: /tmp/freshdocs2/corpus)
# Needs: apt-get (after `apt-get update`), dpkg-deb, man-db + groff-base, col (bsdextrautils), gzip.
# The packages are downloaded, not installed. Man pages are rendered to plain text with
# `man --no-hyphenation --no-justification -l FILE | col -bx` (LC_ALL=C.UTF-8, MANWIDTH=80;
# checked with man-db 2.11.2, groff 1.22.4), so their sha256 may differ with other
# versions; HTML and plain-text files are copied unchanged (gzipped ones are gunzipped).
set -euo pipefail
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../debian_docs.sh"
OUT="${1:-/tmp/freshdocs2/corpus}"
PACKAGES=(
  "postgresql-doc-15=15.20-0+deb12u1"
  "lighttpd-doc=1.4.69-1"
  "chrony=4.3-2+deb12u3"
)
PG_PAGES=(limits runtime-config-connection runtime-config-resource runtime-config-autovacuum
  runtime-config-wal runtime-config-logging runtime-config-locks routine-vacuuming sql-vacuum
  sql-copy sql-createindex indexes-types datatype-numeric datatype-character transaction-iso
  explicit-locking auth-pg-hba-conf app-pgdump backup-dump ddl-partitioning)
LIGHTTPD_DOCS=(access accesslog alias authentication cgi compress configuration dirlisting
  evhost expire extforward fastcgi-state fastcgi features magnet performance plugins proxy
  redirect rewrite rrdtool scgi security setenv simple-vhost skeleton ssi ssl state status
  traffic-shaping userdir webdav)
CHRONY_MAN=(man5/chrony.conf.5 man1/chronyc.1 man8/chronyd.8)
start_build "$OUT" "${PACKAGES[@]}"
mkdir -p "$OUT/postgresql-doc-15" "$OUT/lighttpd-doc" "$OUT/chrony"
for p in "${PG_PAGES[@]}"; do
  cp "x/postgresql-doc-15/usr/share/doc/postgresql-doc-15/html/$p.html" "$OUT/postgresql-doc-15/$p.html"
done
for d in "${LIGHTTPD_DOCS[@]}"; do
  src="x/lighttpd-doc/usr/share/doc/lighttpd/$d.txt"
  if [ -f "$src.gz" ]; then gzip -dc "$src.gz" > "$OUT/lighttpd-doc/$d.txt"; else cp "$src" "$OUT/lighttpd-doc/$d.txt"; fi
done
gzip -dc "x/chrony/usr/share/doc/chrony/FAQ.gz" > "$OUT/chrony/FAQ.txt"
render_mans "$OUT" "${CHRONY_MAN[@]/#/chrony:}"
list_corpus "$OUT"
