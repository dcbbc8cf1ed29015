# npm_retry CMD...: runs an npm command up to three times, 10 s apart.
# A registry that drops a connection fails `npm install` with only "npm
# error A complete log of this run can be found in: ..." on stderr under
# --loglevel=error, so after each failure the tail of that log is printed:
# the cause stays in the CI output. Sourced by scripts that install npm
# packages (scripts/e2e-vscode, scripts/check-vscode).
npm_retry() {
  local try out log
  for try in 1 2 3; do
    out=$(mktemp)
    if "$@" 2>"$out"; then
      cat "$out" >&2
      rm -f "$out"
      return 0
    fi
    cat "$out" >&2
    log=$(sed -n 's/.*A complete log of this run can be found in: *//p' "$out" | tail -1)
    rm -f "$out"
    if [ -n "$log" ] && [ -f "$log" ]; then
      echo "npm_retry: try $try of 3 failed: $*; the end of $log:" >&2
      tail -25 "$log" >&2
    else
      echo "npm_retry: try $try of 3 failed: $*" >&2
    fi
    [ "$try" -lt 3 ] && sleep 10
  done
  return 1
}
