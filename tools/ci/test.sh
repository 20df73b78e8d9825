#!/usr/bin/env bash
# `npm test`: lint, typecheck, unit and host-kernel integration tests, then every lab test inside
# one User-Mode Linux boot, then the reliability suite's reduced plan in another. Runs every stage
# even when one fails, then prints one summary line.
set -uo pipefail
cd "$(dirname "$0")/../.."
bash tools/ci/ensure-deps.sh || exit 1

results=$(mktemp -d)
failed_stages=()
stage() {
  local name=$1; shift
  echo; echo "=== $name: $*"
  local t0=$SECONDS
  if "$@"; then echo "=== $name: ok ($((SECONDS - t0)) s)"; else echo "=== $name: FAILED ($((SECONDS - t0)) s)"; failed_stages+=("$name"); fi
}
export CI=${CI:-1}
stage lint npx eslint . --max-warnings=0
stage format npx prettier --check .
stage typecheck npx nx run-many -t typecheck --outputStyle=static
stage build npx nx run-many -t build --outputStyle=static
stage unit+host npx vitest run --project unit --project host --project host-fast-path --reporter=default --reporter=json --outputFile.json="$results/host.json"
stage lab node --conditions=@fabrik/source --import tsx tools/lab/src/cli.ts test --reporter=default --reporter=json --outputFile.json="$results/lab.json"
# The reliability suite's reduced plan (2 kills of each agent, every restart, a small churn): about
# 3.5 min on the lab kernel in seccomp mode; the full plan is `npm run test:chaos`.
stage chaos env FABRIK_CHAOS=reduced bash tools/ci/chaos.sh

if ((${#failed_stages[@]})); then echo; echo "FAILED stages: ${failed_stages[*]}"; else echo; echo "all stages passed"; fi
# The failed tests, a line each, then the last line: the test count over every vitest run (CI
# reads it). CI shows only the end of the output, so the names of what failed must be there.
node -e '
  const fs = require("fs"); const path = require("path"); let p = 0, f = 0, s = 0;
  for (const file of process.argv.slice(1)) {
    if (!fs.existsSync(file)) continue;
    const r = JSON.parse(fs.readFileSync(file, "utf8"));
    p += r.numPassedTests; f += r.numFailedTests; s += r.numPendingTests + (r.numTodoTests ?? 0);
    const firstLine = (text) => (text ?? "").split("\n")[0].slice(0, 200);
    for (const suite of r.testResults) {
      const file = path.relative(process.cwd(), suite.name);
      const tests = suite.assertionResults.filter((a) => a.status === "failed");
      for (const t of tests) console.log(`failed: ${file} > ${t.fullName}: ${firstLine(t.failureMessages[0])}`);
      // A hook or an import that fails fails the file without failing one of its tests.
      if (suite.status === "failed" && !tests.length) console.log(`failed: ${file}: ${firstLine(suite.message)}`);
    }
  }
  console.log(`tests: ${p} passed, ${f} failed, ${s} skipped`);
' "$results/host.json" "$results/lab.json"
rm -rf "$results"
((${#failed_stages[@]} == 0))
