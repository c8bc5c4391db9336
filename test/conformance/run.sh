#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios
# (@modelcontextprotocol/conformance, --suite all) against the app's own
# client stack: test/conformance/client, built once. Results go to
# test-results/conformance/. Exits non-zero when a scenario fails that is
# not in test/conformance/expected-failures.yml, or when one listed there
# passes. The last line is "N passed, M failed" (scenarios).
#
# Needs Node 22 (the suite crashes on Node 20) and the suite, both from
# test/node: cd test/node && npm ci (make test-deps does it).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="$root/test-results/conformance"
expected="$root/test/conformance/expected-failures.yml"
export PATH="$root/test/node/node_modules/.bin:$PATH"

if ! command -v conformance >/dev/null; then
  echo "conformance: the suite is not installed; run: cd test/node && npm ci" >&2
  exit 1
fi
node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$node_major" -lt 22 ]; then
  echo "conformance: needs Node 22 or newer, found $(node --version 2>/dev/null || echo none); run: cd test/node && npm ci" >&2
  exit 1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"${GO:-go}" build -o "$tmp/client" ./test/conformance/client

rm -rf "$out"
mkdir -p "$out"
# Every scenario runs in parallel, each client killed after 30 s; the
# whole run takes seconds. The outer timeout only guards against a hang.
guard=()
if command -v timeout >/dev/null; then
  guard=(timeout 240)
fi
set +e
(cd "$tmp" && ${guard[@]+"${guard[@]}"} conformance client --command "$tmp/client" --suite all \
  --expected-failures "$expected" -o "$out") >"$out/suite.log" 2>"$out/suite.stderr.log"
rc=$?
set -e

# The summary, and the baseline check that follows it.
sed -n '/=== SUITE SUMMARY ===/,$p' "$out/suite.log"
passed="$(grep -c '^✓ ' "$out/suite.log" || true)"
failed="$(grep -c '^✗ ' "$out/suite.log" || true)"

# The suite judges a scenario by what its server saw, not by the client's
# exit code. A client that failed (say, the tool call went wrong after the
# checks passed) is a failure too, unless the scenario is expected to fail.
while IFS= read -r f; do
  dir="${f#"$out"/}"
  dir="${dir%/stderr.txt}"
  name="$(sed -E 's/-[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9-]+Z$//' <<<"$dir")"
  if ! grep -Eq "^[[:space:]]*-[[:space:]]*$name[[:space:]]*$" "$expected"; then
    echo "conformance: the client failed in $name:" >&2
    grep '^conformance client: ' "$f" >&2
    rc=1
    if grep -q "^✓ $name:" "$out/suite.log"; then
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
  echo "conformance: FAILED (exit $rc); each scenario's checks and client output are under $out" >&2
fi
echo "$passed passed, $failed failed"
exit "$rc"
