#!/usr/bin/env bash
# `npm run lab`: the main job. Installs what is missing, builds the agents and CNI plugins, then
# boots the lab kernel and runs the lab cluster inside it (kubectl apply, agents per node, Pods
# through libcni); the last line is `LAB OK <n> checks passed` or `LAB FAILED <what>`.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/ci/ensure-deps.sh
bash tools/ci/build-lab-parts.sh
# The orchestrator runs compiled (e2e/dist, built above): no TypeScript compiled inside the lab.
exec node --conditions=@fabrik/source --import tsx tools/lab/src/cli.ts run -- node e2e/dist/demo.js
