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
source tools/ci/go-build.sh

src=tools/multus
module=gopkg.in/k8snetworkplumbingwg/multus-cni.v4
version=$(awk -v m="$module" '$1 == "require" && $2 == m { print $3 } $1 == m { print $2 }' "$src/go.mod")
digest=$(cat "$src/go.mod" "$src/go.sum" "$0" tools/ci/go-build.sh | sha256sum | cut -c1-12)
out=${FABRIK_MULTUS_CACHE:-/var/cache/fabrik/multus}/$version-$digest
link=node_modules/.cache/fabrik/multus

if [[ ! -x $out/multus ]]; then
  echo "ensure-multus: building the Multus thin plugin $version with $(go version | cut -d' ' -f3) into $out"
  # multus --version prints these variables; upstream's hack/build-go.sh sets them (and CGO_ENABLED=0) the same way.
  pkg=$module/pkg/multus
  commit=$(cd "$src" && go mod download -json "$module@$version" | awk -F'"' '$2 == "Hash" { print $4 }')
  ldflags="-s -X $pkg.version=$version -X $pkg.commit=$commit -X $pkg.gitTreeState=clean -X $pkg.releaseStatus=,released"
  CGO_ENABLED=0 go_build_into ensure-multus "$src" "$out" "$ldflags" "$module/cmd/multus"
  echo "ensure-multus: $("$out/multus" --version), $(($(stat -c %s "$out/multus") / 1048576)) MB"
fi
link_cache "$out" "$link"
