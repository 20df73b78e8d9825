# Sourced by tools/ci/ensure-k8s.sh and ensure-multus.sh: upstream Go commands built from the module
# versions a small go.mod of ours pins, into a cache directory named by those pins.

# go_build_into NAME SRC OUT LDFLAGS PACKAGE...: builds PACKAGE... of the module in SRC into OUT
# (replaced whole, only once every one built). Prints progress a line a minute and the time it took;
# a module the proxy refuses is named. The caller's environment (CGO_ENABLED=0 ...) applies.
go_build_into() {
  local name=$1 src=$2 out=$3 ldflags=$4
  shift 4
  command -v go >/dev/null || { echo "$name: no Go toolchain (the golang-go package or the machine's Go)" >&2; exit 1; }
  local t0=$SECONDS log
  log=$(mktemp)
  # Downloading first tells a refused module apart from a failed compile.
  if ! (cd "$src" && go mod download) >"$log" 2>&1; then
    echo "$name: the Go module proxy did not serve every module pinned in $src/go.mod:" >&2
    grep -E '@v[0-9]|: (reading|verifying|unrecognized|not found|410|404|403)' "$log" | grep -v '^# get' | tail -n 20 >&2 || tail -n 20 "$log" >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
  echo "$name: modules downloaded ($((SECONDS - t0)) s); compiling (progress: one line a minute)"
  local tmp=$out.tmp.$$
  rm -rf "$tmp" && mkdir -p "$tmp"
  (cd "$src" && go build -trimpath -ldflags="$ldflags" -o "$tmp/" "$@") &
  local build=$!
  while kill -0 "$build" 2>/dev/null; do
    for _ in $(seq 60); do kill -0 "$build" 2>/dev/null || break; sleep 1; done
    kill -0 "$build" 2>/dev/null && echo "$name: still compiling ($((SECONDS - t0)) s)"
  done
  wait "$build" || { echo "$name: go build failed (above)" >&2; rm -rf "$tmp"; exit 1; }
  rm -rf "$out" && mv "$tmp" "$out"
  echo "$name: built in $((SECONDS - t0)) s"
}

# link_cache OUT LINK: LINK (under node_modules/.cache/fabrik) points at OUT.
link_cache() {
  mkdir -p "$(dirname "$2")"
  [[ $(readlink "$2" 2>/dev/null) == "$1" ]] || ln -sfn "$1" "$2"
}
