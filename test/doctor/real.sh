#!/usr/bin/env bash
# Runs `switchboard doctor` (the release binary) over real MCP servers from
# npm that no other test uses, as a new user would set them up: a Claude
# Desktop config naming them is imported into an empty data directory, and
# doctor must say each one connects and lists tools. The servers run on the
# Node 22 of test/node and, where `unshare` allows it, without a network, so
# one that needs to download something at start fails here.
#
#   sequential-thinking  @modelcontextprotocol/server-sequential-thinking: 1 tool
#   notion               @notionhq/notion-mcp-server: tools from a bundled
#                        OpenAPI spec, listed without a token
#
# Needs build/bin/switchboard (make build) and test/node (cd test/node && npm ci).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="$root/build/bin/switchboard"
mods="$root/test/node/node_modules"
node="$mods/.bin/node"

[ -x "$bin" ] || { echo "doctor-real: $bin is missing; run: make build" >&2; exit 1; }
[ -x "$node" ] || { echo "doctor-real: Node 22 is not installed; run: cd test/node && npm ci" >&2; exit 1; }
node_major="$("$node" -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 22 ]; then
  echo "doctor-real: $node is Node $node_major, want 22 or newer; run: cd test/node && npm ci" >&2
  exit 1
fi

# name -> the script node runs; the counts are each server's tools today
# (a new release may add some: at least this many).
declare -A script=(
  [sequential-thinking]="$mods/@modelcontextprotocol/server-sequential-thinking/dist/index.js"
  [notion]="$mods/@notionhq/notion-mcp-server/bin/cli.mjs"
)
declare -A min_tools=([sequential-thinking]=1 [notion]=10)

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
{
  echo '{"mcpServers": {'
  sep=""
  for name in "${!script[@]}"; do
    printf '%s  "%s": {"command": "%s", "args": ["%s"]}' "$sep" "$name" "$node" "${script[$name]}"
    sep=$',\n'
  done
  printf '\n}}\n'
} >"$tmp/claude_desktop_config.json"

export SWITCHBOARD_DATA_DIR="$tmp/data"
unset DBUS_SESSION_BUS_ADDRESS # the keyring is not what this checks; doctor only warns without one
"$bin" servers import "$tmp/claude_desktop_config.json"

# No network while the servers run, when this machine lets us take it away.
offline=()
if unshare -rn true 2>/dev/null; then
  offline=(unshare -rn)
  echo "doctor-real: running doctor without a network (unshare -rn)"
else
  echo "doctor-real: unshare -rn is not allowed here; running doctor with the network"
fi

status=0
out="$(timeout 120 "${offline[@]}" "$bin" doctor 2>&1)" || status=$?
echo "$out"

failed=0
for name in "${!script[@]}"; do
  line="$(grep -E "^ok +server $name connected" <<<"$out" || true)"
  tools="$(sed -nE 's/.* ([0-9]+) tools.*/\1/p' <<<"$line")"
  if [ -z "$line" ]; then
    echo "doctor-real: FAIL: $name did not connect" >&2
    failed=1
  elif [ "${tools:-0}" -lt "${min_tools[$name]}" ]; then
    echo "doctor-real: FAIL: $name lists ${tools:-0} tools, want at least ${min_tools[$name]}" >&2
    failed=1
  fi
done
if [ "$status" -ne 0 ]; then
  echo "doctor-real: FAIL: doctor exited $status" >&2
  failed=1
fi
[ "$failed" -eq 0 ] && echo "doctor-real: ${#script[@]} real servers connect and list tools"
exit "$failed"
