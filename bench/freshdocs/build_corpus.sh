#!/usr/bin/env bash
# Rebuild the freshdocs corpus from pinned Debian 12 (bookworm) packages.
# Usage: bench/freshdocs/build_corpus.sh [OUT_DIR]   (default: /tmp/freshdocs/corpus)
# Needs: apt-get (after `apt-get update`), dpkg-deb, man-db + groff-base, col (bsdextrautils), gzip.
# The packages are downloaded, not installed. Man pages are rendered to plain text with
# `man --no-hyphenation --no-justification -l FILE | col -bx` (LC_ALL=C.UTF-8, MANWIDTH=80;
# checked with man-db 2.11.2, groff 1.22.4), so their sha256 may differ with other
# versions; HTML files are copied unchanged.
set -euo pipefail
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../debian_docs.sh"
OUT="${1:-/tmp/freshdocs/corpus}"
PACKAGES=(
  "sqlite3-doc=3.40.1-2+deb12u2"
  "git-doc=1:2.39.5-0+deb12u3"
  "openssh-client=1:9.2p1-2+deb12u10"
)
SQLITE_PAGES=(limits pragma wal datatype3 lang_createtable autoinc foreignkeys fts5 json1
  lang_vacuum lang_upsert lang_altertable cli backup lockingv3 tempfiles faq whentouse
  quirks isolation rowidtable withoutrowid stricttables gencol partialindex
  lang_transaction lang_attach lang_datefunc lang_corefunc lang_returning)
GIT_PAGES=(git-commit git-rebase git-stash git-gc git-clone git-push git-fetch git-merge
  git-bisect git-worktree git-reflog git-cherry-pick git-revert git-reset git-tag git-blame
  gitignore gitattributes git-submodule git-maintenance git-sparse-checkout git-switch
  git-restore git-repack git-prune git-clean)
SSH_MAN=(man1/ssh.1 man5/ssh_config.5 man1/scp.1 man1/sftp.1 man1/ssh-keygen.1
  man1/ssh-agent.1 man1/ssh-add.1 man1/ssh-keyscan.1 man1/ssh-copy-id.1 man8/ssh-keysign.8)
start_build "$OUT" "${PACKAGES[@]}"
mkdir -p "$OUT/sqlite3-doc" "$OUT/git-doc" "$OUT/openssh-client"
for p in "${SQLITE_PAGES[@]}"; do
  cp "x/sqlite3-doc/usr/share/doc/sqlite3/$p.html" "$OUT/sqlite3-doc/$p.html"
done
for p in "${GIT_PAGES[@]}"; do
  cp "x/git-doc/usr/share/doc/git/html/$p.html" "$OUT/git-doc/$p.html"
done
render_mans "$OUT" "${SSH_MAN[@]/#/openssh-client:}"
list_corpus "$OUT"
