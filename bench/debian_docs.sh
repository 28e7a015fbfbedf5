# Shared steps of the held-out documentation sets' build_corpus.sh scripts (sourced).
# Each set pins its packages and picks its files; these are the steps they share.

# Enter a fresh work folder WORK (readable by man's user, removed on exit), unpack the
# pinned packages NAME=VERSION there and empty OUT: the start of every build.
start_build() {
  local out="$1"; shift
  WORK="$(mktemp -d)"
  chmod 755 "$WORK"
  trap 'rm -rf "$WORK"' EXIT
  cd "$WORK"
  unpack_packages "$@"
  rm -rf "$out"
}

# Render each PACKAGE:manN/PAGE.N of the unpacked packages to OUT/PACKAGE/PAGE.N.txt.
render_mans() {
  local out="$1" spec pkg m; shift
  for spec in "$@"; do
    pkg="${spec%%:*}"; m="${spec#*:}"
    mkdir -p "$out/$pkg"
    render_man "x/$pkg/usr/share/man/$m" "$out/$pkg/$(basename "$m").txt" "$WORK"
  done
}

# Download the pinned packages NAME=VERSION (not installed) and unpack each into x/NAME
# under the current folder. Needs `apt-get update` first and dpkg-deb.
unpack_packages() {
  local spec name deb
  for spec in "$@"; do
    name="${spec%%=*}"
    apt-get download "$spec" >/dev/null
    deb=$(ls "${name}"_*.deb)
    mkdir -p "x/$name"
    dpkg-deb -x "$deb" "x/$name"
  done
}

# Render the gzipped man page SRC.gz to plain text DEST (man-db + groff-base, col from
# bsdextrautils; C.UTF-8, 80 columns, no hyphenation or justification), via WORKDIR.
render_man() {
  local src="$1" dest="$2" workdir="$3" base
  base=$(basename "$src")
  gzip -dc "$src.gz" > "$workdir/$base"
  LC_ALL=C.UTF-8 MANWIDTH=80 man --no-hyphenation --no-justification -l "$workdir/$base" 2>/dev/null \
    | col -bx > "$dest"
}

# Count OUT's files and write the sha256 of each to OUT/../corpus.sha256.
list_corpus() {
  local out="$1" n
  n=$(find "$out" -type f | wc -l)
  echo "$n files into $out"
  ( cd "$out" && find . -type f | sort | xargs sha256sum ) > "$out/../corpus.sha256"
  echo "sha256 list: $(dirname "$out")/corpus.sha256"
}
