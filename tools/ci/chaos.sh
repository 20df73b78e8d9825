#!/usr/bin/env bash
# `npm run test:chaos`: the reliability suite. Boots the lab kernel and breaks the lab cluster on
# purpose (agents killed, OVS, FRR and the API server restarted, churn, bad input); the last line
# is `RESULT chaos trials=<n> converged=<n> leaked=<n> recover_p95_ms=<x>`.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/ci/ensure-deps.sh
bash tools/ci/build-lab-parts.sh
# The orchestrator runs compiled (e2e/dist, built above): no TypeScript compiled inside the lab.
exec node --conditions=@fabrik/source --import tsx tools/lab/src/cli.ts run --env "FABRIK_CHAOS=${FABRIK_CHAOS:-full}" -- \
  node e2e/dist/chaos-main.js
