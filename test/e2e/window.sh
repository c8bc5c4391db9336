#!/usr/bin/env bash
# End-to-end: the real release binary in a real window under Xvfb.
#  1. it opens a window titled Switchboard and the frontend reaches ready;
#     a screenshot is saved to test-results/window.png
#  2. a resize is remembered across a SIGKILL and restart
#  3. a second start against the same data directory is refused
#  4. after SIGKILL the database passes PRAGMA integrity_check
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin="$root/build/bin/switchboard"
out="$root/test-results"
mkdir -p "$out"

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
	rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
	echo "e2e-window: FAIL: $*" >&2
	echo "--- app.log" >&2; tail -n 30 "$SWITCHBOARD_DATA_DIR/logs/app.log" >&2 || true
	echo "--- stderr" >&2; tail -n 30 "$tmp"/stderr-* >&2 || true
	exit 1
}

# start N: starts the app, waits for its window and the frontend's ready call.
start() {
	local n=$1 before
	before=$(grep -c "frontend ready" "$SWITCHBOARD_DATA_DIR/logs/app.log" 2>/dev/null || true)
	"$bin" >"$tmp/stdout-$n" 2>"$tmp/stderr-$n" &
	app=$!
	pids+=("$app")
	wid=$(timeout 60 xdotool search --sync --onlyvisible --name '^Switchboard$' | head -n1) || fail "no window appeared (run $n)"
	for _ in $(seq 1 120); do
		now=$(grep -c "frontend ready" "$SWITCHBOARD_DATA_DIR/logs/app.log" 2>/dev/null || true)
		[ "${now:-0}" -gt "${before:-0}" ] && return 0
		kill -0 "$app" 2>/dev/null || fail "the app exited before the frontend was ready (run $n)"
		sleep 0.5
	done
	fail "the frontend never called Ready (run $n)"
}

passed=0 failed=0
check() { # check NAME CMD...
	if "${@:2}"; then echo "ok   $1"; passed=$((passed + 1)); else echo "FAIL $1"; failed=$((failed + 1)); fi
}

start 1
sleep 1
import -window root "$out/window.png"
dev=$(convert "$out/window.png" -format '%[fx:standard_deviation]' info:)
check "window screenshot is not blank (stddev $dev)" awk -v d="$dev" 'BEGIN { exit !(d > 0.02) }'
check "window title is Switchboard" test "$(xdotool getwindowname "$wid")" = "Switchboard"

xdotool windowsize "$wid" 1000 700
sleep 2 # the frontend saves the size after a 400 ms debounce
kill -9 "$app"
wait "$app" 2>/dev/null || true

start 2
geom=$(xdotool getwindowgeometry "$wid" | awk '/Geometry/ {print $2}')
check "size remembered after SIGKILL (got $geom)" test "$geom" = "1000x700"

set +e
timeout 20 "$bin" >"$tmp/second.out" 2>&1
rc=$?
set -e
check "second instance refused (exit $rc)" grep -q "already running" "$tmp/second.out"

kill -9 "$app"
wait "$app" 2>/dev/null || true
doctor=$("$bin" doctor 2>&1 || true)
check "database intact after SIGKILL" grep -q "integrity ok" <<<"$doctor"

# The main screens in light and dark, in a fresh data directory with a
# provider (the fake one) and a conversation made headless by `ask`.
export SWITCHBOARD_DATA_DIR="$tmp/screens"
fake="$root/build/bin/fakeprovider"
if [ -x "$fake" ]; then
	"$fake" -addr 127.0.0.1:0 >"$tmp/fake.out" 2>&1 &
	disown
	pids+=("$!")
	for _ in $(seq 1 50); do [ -s "$tmp/fake.out" ] && break; sleep 0.1; done
	url=$(head -n1 "$tmp/fake.out")
	"$bin" providers add -id fake -preset custom -base-url "$url" -model fake-model >/dev/null
	"$bin" ask --provider fake --wait-servers 1s "Which planets have rings? Answer with a **table**." >/dev/null 2>&1 || true
	for theme in light dark; do
		if [ "$theme" = dark ]; then export GTK_THEME=Adwaita:dark; else export GTK_THEME=Adwaita; fi
		start "$theme"
		# Open the conversation: the first row of the sidebar.
		xdotool mousemove --window "$wid" 120 229 click 1 mousemove --window "$wid" 760 520
		shot="$out/window-chat-$theme.png"
		dev=0
		for _ in $(seq 1 40); do
			sleep 0.5
			import -window root "$shot"
			dev=$(convert "$shot" -format '%[fx:standard_deviation]' info:)
			awk -v d="$dev" 'BEGIN { exit !(d > 0.05) }' && break
		done
		sleep 1
		import -window root "$shot"
		check "chat screen in $theme rendered ($shot)" awk -v d="$dev" 'BEGIN { exit !(d > 0.05) }'
		kill "$app"
		wait "$app" 2>/dev/null || true
	done
	unset GTK_THEME
else
	echo "skip main-screen screenshots: $fake not built (make e2e-window builds it)"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
