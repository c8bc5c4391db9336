#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios
# (@modelcontextprotocol/conformance) against the app's own client stack,
# test/conformance/client, built once. Three runs:
#   2025          0.1.16, --suite all: the 2025-11-25 era
#   2026-07-28    the newest 0.2.0 alpha, --requirements 2026-07-28: every
#                 scenario that revision requires, nothing expected to fail
#   2026-all      the same alpha, --suite all: extensions included
# Results go to test-results/conformance/<run>/. Exits non-zero when a
# scenario fails that is not in the run's expected-failures file, or when
# one listed there passes. Each run ends with "<run>: N passed, M failed".
#
# Needs Node 22 (the suite crashes on Node 20) and both suites, from
# test/node: cd test/node && npm ci (make test-deps does it).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
here="$root/test/conformance"
modules="$root/test/node/node_modules"
export PATH="$modules/.bin:$PATH"

suite_2025="$modules/@modelcontextprotocol/conformance/dist/index.js"
suite_2026="$modules/conformance-2026/dist/index.js"
for s in "$suite_2025" "$suite_2026"; do
  if [ ! -f "$s" ]; then
    echo "conformance: $s is not installed; run: cd test/node && npm ci" >&2
    exit 1
  fi
done
node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$node_major" -lt 22 ]; then
  echo "conformance: needs Node 22 or newer, found $(node --version 2>/dev/null || echo none); run: cd test/node && npm ci" >&2
  exit 1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"${GO:-go}" build -o "$tmp/client" ./test/conformance/client
rm -rf "$root/test-results/conformance"

# scored REVISION lists the client scenarios that spec revision requires.
scored() {
  node "$suite_2026" list --client --requirements "$1" | sed -n '/^Client scenarios/,$s/^  - //p'
}

# suite RUN SUITE_JS EXPECTED SCORED ARGS... runs one suite and checks its
# result. SCORED is a file naming the scenarios that count (the others run
# but are not scored), or "" for all of them.
suite() {
  local run="$1" js="$2" expected="$3" only="$4"
  shift 4
  local out="$root/test-results/conformance/$run"
  mkdir -p "$out"
  # Every scenario runs in parallel, each client killed after 30 s; a run
  # takes seconds. The outer timeout only guards against a hang.
  local guard=()
  if command -v timeout >/dev/null; then
    guard=(timeout 300)
  fi
  local rc
  set +e
  (cd "$tmp" && ${guard[@]+"${guard[@]}"} node "$js" client --command "$tmp/client" "$@" \
    --expected-failures "$expected" -o "$out") >"$out/suite.log" 2>"$out/suite.stderr.log"
  rc=$?
  set -e

  echo "== $run ($(node -p "require('$(dirname "$js")/../package.json').version"), $*)"
  sed -n '/=== SUITE SUMMARY ===/,$p' "$out/suite.log"
  local results="$out/results.txt" passed failed
  sed -En 's/^([✓✗]) ([^:]+):.*/\2 \1/p' "$out/suite.log" >"$results"
  if [ -n "$only" ]; then
    awk 'NR == FNR { keep[$1] = 1; next } keep[$1]' "$only" "$results" >"$results.scored"
    mv "$results.scored" "$results"
  fi
  passed="$(grep -c ' ✓$' "$results" || true)"
  failed="$(grep -c ' ✗$' "$results" || true)"

  # The suite judges a scenario by what its server saw, not by the
  # client's exit code. A client that failed (say, the tool call went
  # wrong after the checks passed) is a failure too, unless the scenario
  # is expected to fail.
  local f dir name
  while IFS= read -r f; do
    dir="${f#"$out"/}"
    dir="${dir%/stderr.txt}"
    name="$(sed -E 's/-[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9-]+Z$//' <<<"$dir")"
    if [ -n "$only" ] && ! grep -qxF "$name" "$only"; then
      continue
    fi
    if ! grep -Eq "^[[:space:]]*-[[:space:]]*$name[[:space:]]*$" "$expected"; then
      echo "conformance: the client failed in $name:" >&2
      grep '^conformance client: ' "$f" >&2
      rc=1
      if grep -qxF "$name ✓" "$results"; then
        passed=$((passed - 1))
        failed=$((failed + 1))
      fi
    fi
  done < <(grep -l '^conformance client: ' "$out"/*/stderr.txt "$out"/*/*/stderr.txt 2>/dev/null || true)
  if [ $((passed + failed)) -eq 0 ]; then
    echo "conformance: the suite printed no summary (exit $rc); see $out/suite.stderr.log" >&2
    tail -n 20 "$out/suite.stderr.log" >&2
    rc=1
  elif [ "$rc" -ne 0 ]; then
    echo "conformance: $run FAILED (exit $rc); each scenario's checks and client output are under $out" >&2
  fi
  echo "$run: $passed passed, $failed failed"
  return "$rc"
}

scored 2026-07-28 >"$tmp/scored-2026-07-28"
if [ ! -s "$tmp/scored-2026-07-28" ]; then
  echo "conformance: the suite listed no client scenarios for 2026-07-28" >&2
  exit 1
fi
status=0
suite 2025 "$suite_2025" "$here/expected-failures.yml" "" --suite all || status=1
# Scenarios the revision does not require (extensions) run here too; only
# the required ones count, and every one of them must pass.
suite 2026-07-28 "$suite_2026" "$here/expected-failures-none.yml" "$tmp/scored-2026-07-28" \
  --requirements 2026-07-28 || status=1
suite 2026-all "$suite_2026" "$here/expected-failures-2026.yml" "" --suite all || status=1
exit "$status"
