# Debian packages for the test scripts. Source it, then call
#
#   debian_ensure WHO PACKAGE MIN_VERSION [PACKAGE MIN_VERSION]...
#
# WHO names the calling script in messages. Each PACKAGE must end up
# installed at MIN_VERSION or newer. Missing or older packages are installed
# (as root, with apt-get) at whatever version Debian serves today: its
# archives keep only the newest build of a package (the security channel
# rotates builds such as chromium's every few weeks), so an exact pin breaks
# as soon as the build it names is replaced. The version in use is printed.
debian_ensure() {
  local who=$1
  shift
  local -a pkgs=() mins=() need=()
  while [ $# -gt 0 ]; do
    pkgs+=("$1")
    mins+=("$2")
    shift 2
  done
  local i
  for i in "${!pkgs[@]}"; do
    debian_version_ok "${pkgs[$i]}" "${mins[$i]}" || need+=("${pkgs[$i]}")
  done
  if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
      echo "$who: need Debian packages (install as root with apt-get): ${need[*]}" >&2
      return 1
    fi
    echo "== apt-get install ${need[*]}" >&2
    # A machine's package lists may name builds the archive no longer has:
    # on failure, refresh the lists and try once more.
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null 2>&1 ||
      { apt-get update -q >/dev/null &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null; } ||
      { echo "$who: apt-get install ${need[*]} failed" >&2; return 1; }
  fi
  local bad=0
  for i in "${!pkgs[@]}"; do
    if debian_version_ok "${pkgs[$i]}" "${mins[$i]}"; then
      echo "$who: using ${pkgs[$i]} $(debian_version "${pkgs[$i]}") (minimum ${mins[$i]})" >&2
    else
      echo "$who: ${pkgs[$i]} is $(debian_version "${pkgs[$i]}" || echo 'not installed'), need ${mins[$i]} or newer" >&2
      bad=1
    fi
  done
  return $bad
}

# debian_version PACKAGE prints the installed version, or fails.
debian_version() {
  local have
  have=$(dpkg-query -W -f='${db:Status-Status} ${Version}' "$1" 2>/dev/null) || return 1
  case "$have" in
    "installed "*) echo "${have#installed }" ;;
    *) return 1 ;;
  esac
}

# debian_version_ok PACKAGE MIN: installed at MIN or newer.
debian_version_ok() {
  local v
  v=$(debian_version "$1") || return 1
  dpkg --compare-versions "$v" ge "$2"
}
