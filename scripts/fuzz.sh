#!/usr/bin/env bash
# Runs every fuzz target under internal/ for FUZZTIME each (a duration such as
# 60s, or an execution count such as 2000x).
#
# Go 1.26's fuzz coordinator can end a duration-bounded run with a bare
# "context deadline exceeded" although no input failed (go.dev/issue/75804,
# fixed in Go 1.27). make test therefore uses execution counts, which have no
# deadline to race; for duration runs a failure counts only when it wrote a
# reproducer under testdata/fuzz or said something other than that message.
set -uo pipefail
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-60s}
status=0
for dir in $(grep -rl --include='*_test.go' '^func Fuzz' internal | xargs -n1 dirname | sort -u); do
  for f in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go | cut -d' ' -f2); do
    echo "== fuzz $dir $f ($FUZZTIME)"
    corpus="$dir/testdata/fuzz/$f"
    before=$(ls "$corpus" 2>/dev/null | wc -l)
    out=$(mktemp)
    "$GO" test -run '^$' -fuzz "^$f\$" -fuzztime "$FUZZTIME" "./$dir" 2>&1 | tee "$out"
    rc=${PIPESTATUS[0]}
    after=$(ls "$corpus" 2>/dev/null | wc -l)
    if [ "$rc" -ne 0 ]; then
      if [ "$after" -eq "$before" ] && grep -q '^    context deadline exceeded$' "$out" \
         && ! grep -qE '^\s+(panic|.*_test\.go:[0-9]+:)' "$out"; then
        echo "== fuzz $f: Go's fuzz deadline race (go.dev/issue/75804), no failing input; not counted"
      else
        echo "== fuzz $f FAILED (a reproducer, if any, is in $corpus)"
        status=1
      fi
    fi
    rm -f "$out"
  done
done
exit $status
