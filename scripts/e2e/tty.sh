# Shared by scripts/e2e/nvim-screens and scripts/e2e/emacs-screens: runs an
# editor in a detached tmux server of its own (Debian tmux 3.3a) with a
# fixed size (in directory TTY_DIR), waits for text on its screen, types, and takes screenshots
# with scripts/screenshot-tty. Source it; set TTY_COLS and TTY_ROWS first.
tty_sock="tilels-shots-$$"
tty_conf=$(mktemp)
cat >"$tty_conf" <<'CONF'
set -g default-terminal "tmux-256color"
set -g status off
set -g escape-time 10
set -as terminal-features ",*:RGB"
CONF

tty_cleanup() { tmux -L "$tty_sock" kill-server 2>/dev/null || true; rm -f "$tty_conf"; }

# tty_start CMD...: starts CMD in the pane (the session ends with it). The
# server runs in the foreground of a background job (-D): it does not
# daemonize, which fails where /dev/null is not the character device.
tty_start() {
  tmux -L "$tty_sock" -f "$tty_conf" -D </dev/zero >/dev/null 2>&1 &
  local i
  for i in $(seq 50); do
    tmux -L "$tty_sock" list-sessions >/dev/null 2>&1 && break
    [ -S "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$tty_sock" ] && break
    sleep 0.1
  done
  tmux -L "$tty_sock" new-session -d -s shot -x "$TTY_COLS" -y "$TTY_ROWS" -c "${TTY_DIR:-$PWD}" "$@"
}

tty_screen() { tmux -L "$tty_sock" capture-pane -t shot -p; }

# tty_wait TEXT [SECONDS]: until TEXT (a fixed string) is on the screen.
tty_wait() {
  local deadline=$((SECONDS + ${2:-20}))
  while ! tty_screen | grep -qF -- "$1"; do
    if [ $SECONDS -ge $deadline ]; then
      echo "screens: '$1' never appeared; the screen was:" >&2
      tty_screen >&2
      return 1
    fi
    sleep 0.2
  done
}

# tty_keys KEYS...: tmux send-keys.
tty_keys() { tmux -L "$tty_sock" send-keys -t shot "$@"; }

# tty_shot OUT.png: the screen, with the cursor, as a PNG.
tty_shot() {
  local ansi cursor
  ansi=$(mktemp)
  tmux -L "$tty_sock" capture-pane -t shot -e -p -N >"$ansi"
  cursor=$(tmux -L "$tty_sock" display -p -t shot '#{cursor_x},#{cursor_y}')
  scripts/screenshot-tty --cols "$TTY_COLS" --rows "$TTY_ROWS" --cursor "$cursor" "$ansi" "$1"
  rm -f "$ansi"
}
