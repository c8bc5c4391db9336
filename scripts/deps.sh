#!/usr/bin/env bash
# Installs what Switchboard needs and is missing. Usage: scripts/deps.sh run|test
#   run:  the C libraries and tools to build the window (GTK 3, WebKit2GTK 4.1)
#   test: those, plus what the tests use (Xvfb, xdotool, ImageMagick, Chromium,
#         gnome-keyring and D-Bus for the real-keyring test)
# Debian/Ubuntu packages are installed with apt (with sudo when not root);
# on other systems the README lists the prerequisites and this script only checks.
set -euo pipefail

want=${1:-run}
run_pkgs=(build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev)
test_pkgs=(xvfb xauth xdotool x11-utils imagemagick chromium gnome-keyring dbus libsecret-tools procps)

pkgs=("${run_pkgs[@]}")
[ "$want" = test ] && pkgs+=("${test_pkgs[@]}")
# npm builds the frontend and installs servers (and the tests' servers);
# Debian's when the machine has none (scripts/node.sh then fetches a newer
# Node for the frontend's tools if Debian's is too old).
command -v npm >/dev/null 2>&1 || pkgs+=(nodejs npm)

case "$(uname -s)" in
Linux) ;;
*)
	echo "deps: not Linux: skipping system packages (see README for this platform's prerequisites)"
	exit 0
	;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "deps: this is not a Debian/Ubuntu system; install the equivalents of: ${pkgs[*]}" >&2
	exit 0
fi

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		sudo="sudo"
	else
		echo "deps: missing packages (${missing[*]}) and no sudo; install them as root" >&2
		exit 1
	fi
fi
echo "deps: installing ${missing[*]}"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
