#!/usr/bin/env bash
# What the lab cluster runs as built programs, as a node would: both agents (their bin entries
# load dist/) and the CNI plugins libcni executes (fabrik-ovs, fabrik-ipam); and the lab's
# orchestrator itself (@fabrik/e2e's dist/), which runs inside the lab kernel where compiling
# TypeScript at start (tsx) costs seconds of its one thread.
set -euo pipefail
cd "$(dirname "$0")/../.."
npx nx run-many -t build --outputStyle=static \
  -p @fabrik/agent-netns @fabrik/agent-host @fabrik/cni-ovs @fabrik/ipam @fabrik/e2e
