#!/usr/bin/env bash
# Runs a command (the test suite) with the real Secret Service: in a private D-Bus session with a
# gnome-keyring unlocked by a throwaway password, keyrings kept in a temporary directory. So the
# keychain tests need no desktop, never touch the developer's own keyring, and leave nothing behind:
# the keyring daemon is stopped and the bus closed when the command ends.
#   usage: test/with-keychain.sh <command> [args...]
set -euo pipefail

# Already inside such a session (or a caller opted to use the keychain it has): run as is.
if [ -n "${SELLER_TRAY_KEYCHAIN_SESSION:-}" ]; then
  exec "$@"
fi

missing=()
for tool in dbus-run-session gnome-keyring-daemon; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "with-keychain.sh: ${missing[*]} not found (Debian: apt-get install dbus gnome-keyring), so there is no private Secret Service and the keychain tests will fail; running the command anyway." >&2
  exec "$@"
fi

keyring_dir="$(mktemp -d "${TMPDIR:-/tmp}/seller-tray-keyring.XXXXXX")"
trap 'rm -rf "$keyring_dir"' EXIT

status=0
# Inside the session: the keyring daemon runs as a child (--foreground), so it is stopped when the
# command ends, even one that ends before the daemon reached the bus. The XDG dirs are the daemon's
# only: its keyring files and control socket go to the temporary directory. The command starts once
# the daemon owns the Secret Service name: a client that came first would have D-Bus start a second,
# locked keyring outside the temporary directory.
# The daemon's chatter (warnings of items it already knows) goes to a file, shown only when it failed.
# dbus-daemon, run as root without the right to raise its open-file limit (a container), says so at
# every start: expected, so that one line is left out of the error output; everything else passes.
{
SELLER_TRAY_KEYCHAIN_SESSION=1 KEYRING_DIR="$keyring_dir" dbus-run-session -- sh -c '
  printf "seller-tray-test" | XDG_DATA_HOME="$KEYRING_DIR" XDG_RUNTIME_DIR="$KEYRING_DIR" \
    gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>"$KEYRING_DIR/daemon.log" &
  daemon=$!
  tries=0
  until dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \
      org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q true; do
    tries=$((tries + 1))
    if [ "$tries" -gt 100 ] || ! kill -0 "$daemon" 2>/dev/null; then
      echo "with-keychain.sh: gnome-keyring-daemon is not on D-Bus; the keychain tests will fail. It said:" >&2
      cat "$KEYRING_DIR/daemon.log" >&2
      break
    fi
    sleep 0.05
  done
  unset KEYRING_DIR
  status=0
  "$@" || status=$?
  kill "$daemon" 2>/dev/null
  wait "$daemon" 2>/dev/null
  exit "$status"
' with-keychain "$@" 2>&1 1>&3 3>&- | { grep --line-buffered -v 'Failed to set fd limit' || true; } >&2
} 3>&1 || status=$?
exit "$status"
