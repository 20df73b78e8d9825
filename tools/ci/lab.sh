#!/usr/bin/env bash
# `npm run lab`: the main job. Installs what is missing, then boots the lab kernel and runs the
# two-node EVPN demo inside it; the last line is `LAB OK <n> checks passed` or `LAB FAILED <what>`.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/ci/ensure-deps.sh
# The demo runs the built CNI plugin through libcni, as a container runtime would, and the built
# agent-netns as a process per node, as its container would.
npx nx run-many -t build --projects=@fabrik/cni-ovs,@fabrik/agent-netns --outputStyle=static
exec node --conditions=@fabrik/source --import tsx tools/lab/src/cli.ts run -- \
  node --conditions=@fabrik/source --import tsx e2e/src/demo.ts
