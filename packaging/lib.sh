# The shell library of the build and test scripts: logging and timing, the command line, waits,
# package installs and Debian roots. Source it, do not run it.
#
# It lives under packaging/ because the build scripts (the arm64 build environment in
# packaging/arm64/) need it, and a build must not depend on the test tree; the
# scripts under Tests/ source it from here as well, so each helper has one name everywhere.

# --- messages and time ------------------------------------------------------------------------

# The tag before every message: the script's folder (vm, arm64, fleet...) unless the script sets
# LOG_TAG itself.
LOG_TAG=${LOG_TAG:-$(basename "$(cd "$(dirname "$0")" && pwd)")}
log() { printf '[%s] %s\n' "$LOG_TAG" "$*" >&2; }
die() { printf '[%s] error: %s\n' "$LOG_TAG" "$*" >&2; exit 2; }
now() { date +%s.%N | cut -c1-14; }       # seconds since the epoch, with milliseconds
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }   # seconds since $1

# --- the command line ---------------------------------------------------------------------------

# script_help: the running script's header comment (the comment lines after the #! line).
script_help() { awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; }

# parse_args SPEC "$@": sets the variables SPEC names from the command line. The script sets
# the defaults first. SPEC is a list of words:
#   --opt=var          an option with a value            --opt=var(a|b)  the value must be a or b
#   --opt+=var         an option that may repeat: each value appended to the array var
#   --opt:var=value    an option without a value: sets var to value (which may be empty)
#   var                a positional argument, required, in the order given
#   --=var             `--` ends the options; all that follows goes into the array var
# -h or --help prints the script's header comment. A word that is not in SPEC, a missing value
# or positional argument ends the script with one line (and exit status 2).
# (Locals start with _p_: a name SPEC gives must not be one of them.)
parse_args() {
    local _p_item _p_arg _p_var _p_val _p_kind _p_choices _p_next=0
    local -a _p_spec=() _p_pos=()
    read -rd '' -a _p_spec <<< "$1" || true
    shift
    for _p_item in "${_p_spec[@]}"; do
        case $_p_item in -*) ;; *) _p_pos+=("$_p_item") ;; esac
    done
    while [ $# -gt 0 ]; do
        _p_arg=$1
        shift
        case $_p_arg in
            -h|--help) script_help; exit 0 ;;
            -*) ;;
            *)
                [ "$_p_next" -lt ${#_p_pos[@]} ] || die "unexpected argument: $_p_arg (--help shows the usage)"
                printf -v "${_p_pos[_p_next]}" '%s' "$_p_arg"
                _p_next=$((_p_next + 1))
                continue ;;
        esac
        _p_kind=
        for _p_item in "${_p_spec[@]}"; do
            case $_p_item in
                "$_p_arg:"*) _p_kind=flag ;;
                "$_p_arg+="*) _p_kind=append ;;
                "$_p_arg="*) _p_kind=value ;;
                *) continue ;;
            esac
            break
        done
        [ -n "$_p_kind" ] || die "unknown argument: $_p_arg (--help shows the usage)"
        if [ $_p_kind = flag ]; then
            _p_item=${_p_item#*:}
            printf -v "${_p_item%%=*}" '%s' "${_p_item#*=}"
            continue
        fi
        _p_var=${_p_item#*=}
        if [ "$_p_arg" = -- ]; then
            eval "$_p_var=(\"\$@\")"
            break
        fi
        [ $# -gt 0 ] || die "$_p_arg needs a value"
        _p_val=$1
        shift
        if [ $_p_kind = append ]; then
            eval "$_p_var+=(\"\$_p_val\")"
            continue
        fi
        if [[ $_p_var == *'('*')' ]]; then
            _p_choices=${_p_var#*\(}
            _p_choices=${_p_choices%\)}
            _p_var=${_p_var%%\(*}
            [[ "|$_p_choices|" == *"|$_p_val|"* ]] || die "$_p_arg takes ${_p_choices//|/ or }, not '$_p_val'"
        fi
        printf -v "$_p_var" '%s' "$_p_val"
    done
    [ "$_p_next" -ge ${#_p_pos[@]} ] || die "missing ${_p_pos[_p_next]^^} (--help shows the usage)"
}

# --- waits --------------------------------------------------------------------------------------

# wait_until [--every S] [--pid PID] SECONDS COMMAND...: runs COMMAND every S seconds (0.1)
# until it succeeds (status 0) or SECONDS (whole seconds) have passed (status 1). With --pid it gives up as soon
# as process PID has ended, after one more try: what PID writes will not change any more.
# (Locals start with _w_: the command may be a function that reads its caller's variables.)
wait_until() {
    local _w_every=0.1 _w_pid= _w_end
    while :; do
        case $1 in
            --every) _w_every=$2; shift 2 ;;
            --pid) _w_pid=$2; shift 2 ;;
            *) break ;;
        esac
    done
    # (microseconds; EPOCHREALTIME's separator follows the locale)
    _w_end=$(( ${EPOCHREALTIME//[!0-9]/} + $1 * 1000000 ))
    shift
    while :; do
        "$@" && return 0
        if [ -n "$_w_pid" ] && ended "$_w_pid"; then "$@"; return; fi
        [ "${EPOCHREALTIME//[!0-9]/}" -lt "$_w_end" ] || return 1
        sleep "$_w_every"
    done
}

# ended PID: the process is gone (this shell reaps its own children as they exit).
ended() { ! kill -0 "$1" 2> /dev/null; }

# log_has FILE REGEX: a line of FILE matches (extended regex); a missing FILE has none.
log_has() { grep -qE -- "$2" "$1" 2> /dev/null; }

# --- Debian packages and roots -------------------------------------------------------------------

# apt_update_once: `apt-get update` at most once per run (exported, so the scripts a run starts
# share it).
apt_update_once() {
    [ "${APT_UPDATED:-}" = 1 ] && return 0
    log "apt-get update"
    apt-get update -qq >&2 || die "apt-get update failed"
    export APT_UPDATED=1
}

# need_host_packages PKG...: installs the Debian packages this machine lacks (as root).
need_host_packages() {
    local missing=() p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    [ "$(id -u)" = 0 ] || die "missing packages (${missing[*]}): run as root, or: sudo apt-get install ${missing[*]}"
    apt_update_once
    log "apt-get install ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 \
        || die "apt-get install ${missing[*]} failed"
}

# debian_mirror: the machine's own Debian mirror, as apt uses it (deb822 first, then the
# one-line format), so roots come from where this machine's packages come from.
debian_mirror() {
    local m=
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        m=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
    fi
    if [ -z "$m" ] && [ -f /etc/apt/sources.list ]; then
        m=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; exit } }' /etc/apt/sources.list)
    fi
    echo "${m:-http://deb.debian.org/debian}"
}

# debootstrap_partial ROOT LOG SUITE [DEBOOTSTRAP-OPTION...]: a fresh Debian root in ROOT.partial
# (ROOT and an earlier ROOT.partial removed first), from debian_mirror, its output in LOG. The
# caller finishes it and renames it to ROOT, so a root that exists is always a whole one.
debootstrap_partial() {
    local root=$1 out=$2 suite=$3
    shift 3
    need_host_packages debootstrap
    remove_tree "$root"
    remove_tree "$root.partial"
    if ! debootstrap "$@" "$suite" "$root.partial" "$(debian_mirror)" > "$out" 2>&1; then
        tail -n 20 "$out" >&2
        die "debootstrap failed (log: $out)"
    fi
}

# in_chroot ROOT [--bind DIR] COMMAND...: runs COMMAND in ROOT with /proc, /sys and /dev, and
# DIR at the same path inside, mounted in a private mount namespace: the mounts end with the
# command, whatever happens to it.
in_chroot() {
    local root=$1 bind=
    shift
    if [ "${1:-}" = --bind ]; then bind=$2; shift 2; fi
    unshare --mount --propagation private -- /bin/sh -ec '
        root=$1 bind=$2; shift 2
        mount -t proc proc "$root/proc"
        mount --rbind /sys "$root/sys"
        mount --rbind /dev "$root/dev"
        if [ -n "$bind" ]; then mkdir -p "$root$bind"; mount --bind "$bind" "$root$bind"; fi
        exec chroot "$root" "$@"' in_chroot "$root" "$bind" "$@"
}

# remove_tree DIR: removes a root that a killed debootstrap may have left with /proc or /sys
# mounted inside: unmounts what is mounted below DIR first (deepest first), and never crosses
# into another file system.
remove_tree() {
    local dir=$1 m
    [ -e "$dir" ] || return 0
    dir=$(realpath "$dir")
    for m in $(awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
        umount -l "$m" || die "cannot unmount $m (left by an earlier run); remove $dir by hand"
    done
    rm -rf --one-file-system "$dir"
}

# --- the project's own Debian packages ---------------------------------------------------------
# (They are built from debian/ by dpkg-buildpackage: the Makefile's deb targets.)

# deb_depends_names DEB: the packages DEB's Depends names, comma-separated (the first of each
# alternative, versions dropped): what a Debian root needs so that `dpkg -i DEB` succeeds.
deb_depends_names() {
    dpkg-deb -f "$1" Depends | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/[[:space:]]//g' | grep -v '^$' | paste -sd,
}
