#!/bin/bash
# The apt repository `make repo` writes (packaging/make-repo.sh), as a kiosk sees it:
#   - its files: each suite's InRelease, Release and Release.gpg, which gpgv verifies with the
#     shipped key (a binary OpenPGP keyring); Origin and Label what unattended-upgrades' drop-in
#     allows; each suite and architecture lists the packages it should (trixie amd64: the
#     Debian 12 build, arm64: the arm64 build, bubble-kiosk-lockdown in all);
#   - in copies of the boot tests' Debian 12 amd64 root and Debian 13 arm64 root (the cached
#     roots of Tests/vm/debian-root.sh, never written to; the arm64 one runs under qemu-user)
#     with no source but bubble-kiosk.sources (URIs: the repository, bind-mounted as file://)
#     and the key in /usr/share/keyrings: a tampered InRelease, a tampered Release (no
#     InRelease) and an unsigned repository are refused by apt-get update and leave no package
#     to install; the repository as written updates cleanly, and apt-get install installs
#     bubble-kiosk and bubble-kiosk-lockdown from it (apt-cache policy names its origin).
#
# usage: Tests/package/repo-test.sh [--keep] REPO
#   REPO    build/apt (make repo)
#   --keep  leave the scratch folder (and the roots' copies) in /tmp
# Ends with "repo-test: N passed, M failed"; exit 0 only when nothing failed.
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
LOG_TAG=repo-test
keep=0
parse_args '--keep:keep=1 apt_repo' "$@"
[ -d "$apt_repo/dists" ] || die "no repository at $apt_repo (make repo)"
[ "$(id -u)" = 0 ] || die "run as root (apt-get in a chroot)"
apt_repo=$(cd "$apt_repo" && pwd)
work=$(mktemp -d /tmp/repo-test.XXXXXX)
[ $keep = 1 ] || trap 'remove_tree "$work"' EXIT
t0=$(now)
keyring=$apt_repo/bubble-kiosk-archive-keyring.pgp
need_host_packages gpgv

# --- the files ---------------------------------------------------------------------------------
check "the key is a binary OpenPGP keyring with one public key" \
    bash -c "[ \"\$(gpg --batch --show-keys --with-colons '$keyring' | grep -c '^pub')\" = 1 ] && ! grep -q 'BEGIN PGP' '$keyring'"
for suite in bookworm trixie; do
    d=$apt_repo/dists/$suite
    check "$suite: InRelease verifies with the key (gpgv)" gpgv --keyring "$keyring" "$d/InRelease"
    check "$suite: Release.gpg verifies Release with the key (gpgv)" gpgv --keyring "$keyring" "$d/Release.gpg" "$d/Release"
    check "$suite: InRelease signs the same text as Release" \
        bash -c "gpgv --keyring '$keyring' --output - '$d/InRelease' 2> /dev/null | cmp - '$d/Release'"
    check "$suite: Origin and Label bubble-kiosk (what the unattended-upgrades drop-in allows), Codename $suite" \
        bash -c "grep -qx 'Origin: bubble-kiosk' '$d/Release' && grep -qx 'Label: bubble-kiosk' '$d/Release' && grep -qx 'Codename: $suite' '$d/Release' &&
                 grep -qF '\"origin=bubble-kiosk,label=bubble-kiosk\";' '$repo/packaging/unattended-upgrades.conf'"
done
# listed SUITE ARCH: "PACKAGE ARCHITECTURE" of each entry of that index.
listed() { awk '/^Package:/ { p = $2 } /^Architecture:/ { print p, $2 }' "$apt_repo/dists/$1/main/binary-$2/Packages" | sort -u | paste -sd' '; }
check "bookworm amd64 lists bubble-kiosk (amd64) and bubble-kiosk-lockdown (all)" \
    [ "$(listed bookworm amd64)" = "bubble-kiosk amd64 bubble-kiosk-lockdown all" ]
check "trixie amd64 lists bubble-kiosk (amd64) and bubble-kiosk-lockdown (all)" \
    [ "$(listed trixie amd64)" = "bubble-kiosk amd64 bubble-kiosk-lockdown all" ]
check "trixie arm64 lists bubble-kiosk (arm64) and bubble-kiosk-lockdown (all)" \
    [ "$(listed trixie arm64)" = "bubble-kiosk arm64 bubble-kiosk-lockdown all" ]
check "bubble-kiosk.sources: deb822 with Signed-By: the key in /usr/share/keyrings" \
    bash -c "grep -qx 'Types: deb' '$apt_repo/bubble-kiosk.sources' && grep -qx 'Components: main' '$apt_repo/bubble-kiosk.sources' &&
             grep -qx 'Signed-By: /usr/share/keyrings/bubble-kiosk-archive-keyring.pgp' '$apt_repo/bubble-kiosk.sources'"

# --- a tampered copy of the repository ---------------------------------------------------------
# tampered KIND: $work/KIND, the repository's indexes copied (the pool linked) and changed:
#   inrelease  a field of InRelease's signed text changed
#   release    InRelease gone, a field of Release changed (Release.gpg as it was)
#   unsigned   InRelease and Release.gpg gone
tampered() {
    local t=$work/$1 suite
    rm -rf "$t"
    mkdir -p "$t"
    cp -a "$apt_repo/dists" "$t/dists"
    ln -s "$apt_repo/pool" "$t/pool"
    for suite in bookworm trixie; do
        case $1 in
            inrelease) sed -i 's/^Description: .*/Description: a mirror that changed this line/' "$t/dists/$suite/InRelease" ;;
            release) rm "$t/dists/$suite/InRelease"
                     sed -i 's/^Description: .*/Description: a mirror that changed this line/' "$t/dists/$suite/Release" ;;
            unsigned) rm "$t/dists/$suite/InRelease" "$t/dists/$suite/Release.gpg" ;;
        esac
    done
    echo "$t"
}

# --- in a Debian root with only the repository's source and key --------------------------------
# sources_for ROOT URI SUITE: the repository's bubble-kiosk.sources, its URIs and Suites set, as
# the root's one source; its package lists emptied.
sources_for() {
    rm -f "$1"/etc/apt/sources.list "$1"/etc/apt/sources.list.d/*
    sed -e "s|^URIs: .*|URIs: file://$2|" -e "s|^Suites: .*|Suites: $3|" "$apt_repo/bubble-kiosk.sources" \
        > "$1/etc/apt/sources.list.d/bubble-kiosk.sources"
    find "$1/var/lib/apt/lists" -maxdepth 1 -type f ! -name lock -delete
}

# in_root ROOT DIR COMMAND...: COMMAND in the root's copy, DIR (a repository) mounted at its path.
in_root() { local root=$1 dir=$2; shift 2; in_chroot "$root" --bind "$dir" "$@"; }

# refused ROOT DIR WHAT: apt-get update fails on a signature error, and no package comes of it.
refused() {
    local out rc=0
    out=$(in_root "$1" "$2" apt-get update 2>&1) || rc=$?
    echo "$out"
    [ $rc != 0 ] || { echo "apt-get update succeeded (exit 0)"; return 1; }
    echo "$out" | grep -qiE 'signature|not signed|BADSIG|NO_PUBKEY|OpenPGP' || { echo "no signature error named"; return 1; }
    ! in_root "$1" "$2" apt-cache show bubble-kiosk > /dev/null 2>&1 || { echo "bubble-kiosk is known to apt"; return 1; }
}

# update_clean ROOT: apt-get update succeeds without a warning or error line.
update_clean() {
    local out
    out=$(in_root "$1" "$apt_repo" apt-get update 2>&1) || { echo "$out"; return 1; }
    echo "$out"
    ! echo "$out" | grep -qE '^(W|E|Err):'
}

# policy_from_repo ROOT PACKAGE VERSION: apt-cache policy has VERSION as installed and candidate, from
# the repository (its file: URI), whose Release apt read as origin and label bubble-kiosk.
policy_from_repo() {
    local out
    out=$(in_root "$1" "$apt_repo" apt-cache policy "$2"; in_root "$1" "$apt_repo" apt-cache policy)
    echo "$out"
    echo "$out" | grep -qx "  Installed: $3" && echo "$out" | grep -qx "  Candidate: $3" &&
        echo "$out" | grep -qE "^ +500 file:$apt_repo [a-z]+/main [a-z0-9]+ Packages" &&
        echo "$out" | grep -qE 'release o=bubble-kiosk,a=[a-z]+,n=[a-z]+,l=bubble-kiosk,c=main'
}

# test_root ARCH SUITE: the checks in a copy of the cached root for ARCH.
test_root() {
    local arch=$1 suite=$2 deb root_args=() paths ROOT root version t1
    t1=$(now)
    deb=$(ls "$apt_repo"/pool/$suite/main/b/bubble-kiosk/bubble-kiosk_*_$arch.deb | sort -V | tail -n1)
    version=$(dpkg-deb -f "$deb" Version)
    [ $arch = amd64 ] || root_args=(--arch $arch)
    [ $arch = amd64 ] || vm_binfmt_aarch64
    # The root the boot test makes for this package's Depends: the cached one, not another.
    paths=$(bash "$repo/Tests/vm/debian-root.sh" --with "$(deb_depends_names "$deb")" "${root_args[@]}") || die "no Debian root"
    eval "$paths"
    root=$work/root-$suite-$arch
    cp -a "$ROOT" "$root"
    log "$suite $arch: a copy of $ROOT"

    for kind in inrelease release unsigned; do
        dir=$(tampered $kind)
        sources_for "$root" "$dir" "$suite"
        install -D -m 644 "$keyring" "$root/usr/share/keyrings/bubble-kiosk-archive-keyring.pgp"
        case $kind in
            inrelease) what="a tampered InRelease" ;;
            release) what="a tampered Release (no InRelease; Release.gpg as signed)" ;;
            unsigned) what="an unsigned repository (no InRelease, no Release.gpg)" ;;
        esac
        check "$suite $arch: apt-get update refuses $what, and installs nothing from it" refused "$root" "$dir"
    done

    sources_for "$root" "$apt_repo" "$suite"
    check "$suite $arch: with only bubble-kiosk.sources and the key, apt-get update verifies the repository (no warning)" update_clean "$root"
    check "$suite $arch: apt-get install bubble-kiosk bubble-kiosk-lockdown from the repository" \
        in_root "$root" "$apt_repo" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends bubble-kiosk bubble-kiosk-lockdown
    check "$suite $arch: bubble-kiosk $version installed, from the repository (apt-cache policy)" policy_from_repo "$root" bubble-kiosk "$version"
    check "$suite $arch: bubble-kiosk-lockdown $version installed, from the repository" policy_from_repo "$root" bubble-kiosk-lockdown "$version"
    check "$suite $arch: the installed program is the repository's (dpkg --verify)" in_root "$root" "$apt_repo" dpkg --verify bubble-kiosk
    remove_tree "$root"
    log "$suite $arch: $(elapsed "$t1") s"
}
. "$repo/Tests/vm/lib.sh"     # vm_binfmt_aarch64 (the arm64 root's apt and dpkg run under qemu-user)
LOG_TAG=repo-test
test_root amd64 bookworm
test_root arm64 trixie

echo "--- repo-test took $(elapsed "$t0") s"
summary repo-test
