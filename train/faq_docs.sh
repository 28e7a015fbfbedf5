#!/usr/bin/env bash
# The FAQs train/build_faq.py reads, from pinned Debian 12 (bookworm) packages that no
# bench set uses (fetchmail's FAQ is left out: its man page is in bench/freshdocs6).
# Usage: train/faq_docs.sh [OUT_DIR]   (default: /tmp/faq/corpus); needs what the bench
# sets' build scripts need (bench/debian_docs.sh). Licences: each package's copyright file.
set -euo pipefail
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../bench/debian_docs.sh"
OUT="${1:-/tmp/faq/corpus}"
PACKAGES=(
  "python3.11-doc=3.11.2-6+deb12u9"
  "debian-faq=11.1"
  "perl-doc=5.36.0-7+deb12u4"
  "nano=7.2-1+deb12u1"
  "xterm=379-1"
  "weechat-doc=3.8-1"
  "irssi=1.4.3-2"
  "zsh-doc=5.9-4"
)
start_build "$OUT" "${PACKAGES[@]}"
mkdir -p "$OUT/python" "$OUT/debian" "$OUT/nano" "$OUT/xterm" "$OUT/weechat" "$OUT/irssi" \
  "$OUT/zsh"
for f in x/python3.11-doc/usr/share/doc/python3.11/html/faq/*.html; do
  [ "$(basename "$f")" = index.html ] || cp "$f" "$OUT/python/"
done
for f in x/debian-faq/usr/share/doc/debian/FAQ/*.en.html; do
  case "$(basename "$f")" in index*|faqinfo*) ;; *) cp "$f" "$OUT/debian/";; esac
done
render_mans "$OUT" $(for n in 1 2 3 4 5 6 7 8 9; do echo "perl-doc:man1/perlfaq$n.1"; done)
cp x/nano/usr/share/doc/nano/faq.html "$OUT/nano/"
cp x/xterm/usr/share/doc/xterm/xterm.faq.html "$OUT/xterm/"
cp x/weechat-doc/usr/share/doc/weechat-doc/html/weechat_faq.en.html "$OUT/weechat/"
cp x/irssi/usr/share/doc/irssi/faq.html "$OUT/irssi/"
cp x/zsh-doc/usr/share/doc/zsh-common/html/FAQ0*.html "$OUT/zsh/"
list_corpus "$OUT"
