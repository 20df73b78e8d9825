#!/usr/bin/env bash
# The real Kubernetes control plane for fabrik's tests and lab: kube-apiserver and kubectl from
# k8s.io/kubernetes and etcd from go.etcd.io/etcd/server/v3, built with the machine's Go from the
# module versions pinned in tools/k8s (go.mod, go.sum). Built once per pinned set and kept in
# /var/cache/fabrik/k8s/<k8s version>-<digest of tools/k8s>/, outside node_modules so that `npm ci`
# does not throw it away; node_modules/.cache/fabrik/k8s points at it (@fabrik/testkit reads it there).
# The first build takes several minutes on a 2-core machine (README, "Requirements").
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/ci/go-build.sh

src=tools/k8s
version=$(awk '$1 == "k8s.io/kubernetes" { print $2 }' "$src/go.mod")
digest=$(cat "$src/go.mod" "$src/go.sum" "$src/etcd/main.go" "$0" tools/ci/go-build.sh | sha256sum | cut -c1-12)
out=${FABRIK_K8S_CACHE:-/var/cache/fabrik/k8s}/$version-$digest
link=node_modules/.cache/fabrik/k8s
binaries=(kube-apiserver kubectl etcd)

have_all() { for b in "${binaries[@]}"; do [[ -x $1/$b ]] || return 1; done; }

if ! have_all "$out"; then
  echo "ensure-k8s: building kube-apiserver and kubectl $version and etcd $(awk '$1 == "go.etcd.io/etcd/server/v3" { print $2 }' "$src/go.mod") with $(go version | cut -d' ' -f3) into $out"
  # The release's version, as kubernetes' own build stamps it (hack/lib/version.sh): without it the
  # server reports v0.0.0-master and `kubectl version` cannot tell which release a test met.
  minor=${version#v1.} minor=${minor%%.*}
  stamp=k8s.io/component-base/version
  ldflags="-s -X $stamp.gitVersion=$version -X $stamp.gitMajor=1 -X $stamp.gitMinor=$minor -X $stamp.gitTreeState=clean"
  ldflags+=" -X k8s.io/client-go/pkg/version.gitVersion=$version -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$minor"
  go_build_into ensure-k8s "$src" "$out" "$ldflags" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kubectl ./etcd
  echo "ensure-k8s: $("$out/kube-apiserver" --version), etcd $("$out/etcd" --version | awk 'NR == 1 { print $3 }')"
fi
link_cache "$out" "$link"
