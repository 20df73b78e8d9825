#!/usr/bin/env bash
# Multus, as users run it, for the lab: the thin plugin (cmd/multus) from
# gopkg.in/k8snetworkplumbingwg/multus-cni.v4, built with the machine's Go from the module versions
# pinned in tools/multus (go.mod, go.sum; its own module because Multus pins an older client-go than
# tools/k8s). Built once per pinned set (and build flags) and kept in
# /var/cache/fabrik/multus/<version>-<digest of tools/multus and this script>/, outside node_modules
# so that `npm ci` does not throw it away; the first build takes several minutes on a loaded 2-core
# machine (8.5 min measured), later ones seconds (Go's build cache).
# node_modules/.cache/fabrik/multus points at it (the lab reads it there).
set -euo pipefail
cd "$(dirname "$0")/../.."

src=tools/multus
module=gopkg.in/k8snetworkplumbingwg/multus-cni.v4
version=$(awk -v m="$module" '$1 == "require" && $2 == m { print $3 } $1 == m { print $2 }' "$src/go.mod")
digest=$(cat "$src/go.mod" "$src/go.sum" "$0" | sha256sum | cut -c1-12)
out=${FABRIK_MULTUS_CACHE:-/var/cache/fabrik/multus}/$version-$digest
link=node_modules/.cache/fabrik/multus

if [[ ! -x $out/multus ]]; then
  command -v go >/dev/null || { echo "ensure-multus: no Go toolchain (the golang-go package or the machine's Go)" >&2; exit 1; }
  echo "ensure-multus: building the Multus thin plugin $version with $(go version | cut -d' ' -f3) into $out"
  t0=$SECONDS
  log=$(mktemp)
  trap 'rm -f "$log"' EXIT
  # Downloading first tells a refused module apart from a failed compile.
  if ! (cd "$src" && go mod download) >"$log" 2>&1; then
    echo "ensure-multus: the Go module proxy did not serve every pinned module ($module $version and its dependencies):" >&2
    grep -E '@v[0-9]|: (reading|verifying|unrecognized|not found|410|404|403)' "$log" | grep -v '^# get' | tail -n 20 >&2 || tail -n 20 "$log" >&2
    exit 1
  fi
  echo "ensure-multus: modules downloaded ($((SECONDS - t0)) s); compiling (progress: one line a minute)"
  tmp=$out.tmp.$$
  rm -rf "$tmp" && mkdir -p "$tmp"
  # multus --version prints these variables; upstream's hack/build-go.sh sets them (and CGO_ENABLED=0) the same way.
  pkg=$module/pkg/multus
  commit=$(cd "$src" && go mod download -json "$module@$version" | awk -F'"' '$2 == "Hash" { print $4 }')
  ldflags="-s -X $pkg.version=$version -X $pkg.commit=$commit -X $pkg.gitTreeState=clean -X $pkg.releaseStatus=,released"
  (cd "$src" && CGO_ENABLED=0 go build -trimpath -ldflags="$ldflags" -o "$tmp/" "$module/cmd/multus") &
  build=$!
  while kill -0 "$build" 2>/dev/null; do
    for _ in $(seq 60); do kill -0 "$build" 2>/dev/null || break; sleep 1; done
    kill -0 "$build" 2>/dev/null && echo "ensure-multus: still compiling ($((SECONDS - t0)) s)"
  done
  wait "$build" || { echo "ensure-multus: go build failed (above)" >&2; rm -rf "$tmp"; exit 1; }
  rm -rf "$out" && mv "$tmp" "$out"
  echo "ensure-multus: built in $((SECONDS - t0)) s: $("$out/multus" --version), $(($(stat -c %s "$out/multus") / 1048576)) MB"
fi
mkdir -p "$(dirname "$link")"
[[ $(readlink "$link" 2>/dev/null) == "$out" ]] || ln -sfn "$out" "$link"
