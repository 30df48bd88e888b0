#!/bin/bash
# Builds the signed apt repository of the packages: `make repo` runs it on build/'s .debs.
#
# usage: packaging/make-repo.sh [--key KEYID] [--url URL] [--trixie-amd64 DEB] [--keep N] OUTDIR DEB...
#   OUTDIR          the repository (build/apt): dists/, pool/, the public key and the .sources
#                   file. Packages already in its pool stay: the last N versions of each package
#                   (--keep, default 3) are listed, so `apt install bubble-kiosk=OLD` finds them
#   DEB             packages to add; each goes where its Architecture says:
#                     amd64  suites bookworm and trixie (the Debian 12 build, which runs on
#                            Debian 13 unchanged: the arm64 test boots it there), unless
#                            --trixie-amd64 names a native Debian 13 build for trixie
#                     arm64  suite trixie (built with Debian 13's Swift)
#                     all    every suite and architecture (bubble-kiosk-lockdown)
#   --key KEYID     sign with this key from the operator's GnuPG home ($GNUPGHOME or ~/.gnupg);
#                   without it a test key signs, made once in $REPO_TEST_KEY_DIR
#                   (/var/cache/bubble-kiosk-repo/gnupg), outside the checkout
#   --url URL       the URIs: line of bubble-kiosk.sources (default: a placeholder to edit)
# Writes OUTDIR/dists/SUITE/{Release,InRelease,Release.gpg} and main/binary-ARCH/Packages{,.gz,.xz}
# (apt-ftparchive writes the indexes and the Release file, gpg signs it), the public key as
# OUTDIR/bubble-kiosk-archive-keyring.pgp (a binary OpenPGP keyring, as Debian's
# *-archive-keyring.pgp) and OUTDIR/bubble-kiosk.sources (deb822, Signed-By: the key in
# /usr/share/keyrings/). Release's Origin and Label are "bubble-kiosk": the unattended-upgrades
# drop-in the package ships (packaging/unattended-upgrades.conf) allows that origin.
#
# Why apt-ftparchive and not reprepro: Debian's reprepro (5.3.1 in Debian 12, 5.3.2 in Debian
# 13) keeps one version of a package per suite (several versions and Limit: came in 5.4), so a
# downgrade from the repository would find no older version; apt-ftparchive lists every file in
# the pool.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
LOG_TAG=make-repo
. "$here/lib.sh"
key= url= trixie_amd64= keep=3 outdir= debs=()
# (parse_args takes a fixed number of positional arguments: OUTDIR, then any number of packages.)
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) script_help; exit 0 ;;
        --key|--url|--trixie-amd64|--keep)
            [ $# -gt 1 ] || die "$1 needs a value"
            v=${1#--}; printf -v "${v//-/_}" '%s' "$2"; shift 2 ;;
        -*) die "unknown argument: $1 (--help shows the usage)" ;;
        *) if [ -z "$outdir" ]; then outdir=$1; else debs+=("$1"); fi; shift ;;
    esac
done
[ ${#debs[@]} -gt 0 ] || die "usage: make-repo.sh [options] OUTDIR DEB... (--help shows more)"
[[ $keep =~ ^[1-9][0-9]*$ ]] || die "--keep takes a whole number from 1, not '$keep'"
need_host_packages apt-utils gnupg xz-utils

ORIGIN=bubble-kiosk
SUITES=(bookworm trixie)
declare -A ARCHES=([bookworm]=amd64 [trixie]="amd64 arm64")
declare -A DESCRIPTION=([bookworm]="bubble-kiosk for Debian 12 (bookworm)"
                        [trixie]="bubble-kiosk for Debian 13 (trixie) and Raspberry Pi OS trixie")
KEYRING=bubble-kiosk-archive-keyring.pgp
REPO_TEST_KEY_DIR=${REPO_TEST_KEY_DIR:-/var/cache/bubble-kiosk-repo/gnupg}

# --- the signing key ------------------------------------------------------------------------------
# test_key: the test key's fingerprint, made on first use in its own GnuPG home (no passphrase:
# it signs repositories for the tests, never a fleet's).
test_key() {
    install -d -m 700 "$GNUPGHOME"
    exec 8>"$GNUPGHOME/../.lock"
    flock 8
    if ! gpg --batch --list-secret-keys --with-colons 2>/dev/null | grep -q '^sec'; then
        log "making the repository's test key in $GNUPGHOME (once)"
        gpg --batch --quiet --passphrase '' --quick-gen-key \
            'bubble-kiosk test archive key (for tests only)' ed25519 sign never >&2
    fi
    flock -u 8
    gpg --batch --list-secret-keys --with-colons | awk -F: '$1 == "fpr" { print $10; exit }'
}
if [ -z "$key" ]; then
    export GNUPGHOME=$REPO_TEST_KEY_DIR
    # The agent gpg starts for the test key's home ends with this script.
    trap 'gpgconf --kill gpg-agent 2> /dev/null || true' EXIT
    key=$(test_key)
    log "signing with the test key $key (REPO_SIGNING_KEY=KEYID signs with yours)"
else
    gpg --batch --list-secret-keys "$key" > /dev/null 2>&1 \
        || die "no secret key '$key' in ${GNUPGHOME:-~/.gnupg} (gpg --list-secret-keys)"
    log "signing with $key"
fi
gpg_sign() { gpg --batch --yes --local-user "$key" --digest-algo SHA512 "$@"; }

# --- the pool ------------------------------------------------------------------------------------
# pool/SUITE/main/b/PACKAGE/FILE: each suite its own pool, so a native Debian 13 amd64 build
# of the same version never meets the Debian 12 one.
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
# add DEB SUITE: DEB into SUITE's pool (a rebuild of the same version replaces the file).
add() {
    local name dir
    name=$(dpkg-deb -f "$1" Package)
    dir=$outdir/pool/$2/main/${name:0:1}/$name
    mkdir -p "$dir"
    cmp -s "$1" "$dir/$(basename "$1")" || install -m 644 "$1" "$dir/"
    echo "  $2: $(basename "$1")" >&2
}
for deb in "${debs[@]}"; do
    [ -f "$deb" ] || die "no package at '$deb'"
    case $(dpkg-deb -f "$deb" Architecture) in
        amd64) add "$deb" bookworm; [ -n "$trixie_amd64" ] || add "$deb" trixie ;;
        arm64) add "$deb" trixie ;;
        all) for s in "${SUITES[@]}"; do add "$deb" "$s"; done ;;
        *) die "$deb: no suite takes Architecture $(dpkg-deb -f "$deb" Architecture)" ;;
    esac
done
if [ -n "$trixie_amd64" ]; then
    [ "$(dpkg-deb -f "$trixie_amd64" Architecture)" = amd64 ] || die "--trixie-amd64 $trixie_amd64 is not an amd64 package"
    add "$trixie_amd64" trixie
    log "trixie amd64: the native Debian 13 build $(basename "$trixie_amd64")"
else
    log "trixie amd64: the Debian 12 build (no native Debian 13 amd64 build given)"
fi

# Older versions beyond the last $keep of each package and architecture leave the pool.
for dir in "$outdir"/pool/*/main/*/*/; do
    for arch in amd64 arm64 all; do
        versions=$(cd "$dir" && ls -- *_"$arch".deb 2> /dev/null | sed 's/^[^_]*_//; s/_[^_]*$//' | sort -V -r) || true
        for v in $(tail -n +$((keep + 1)) <<< "$versions"); do
            log "dropping ${dir}*_${v}_$arch.deb (more than $keep versions)"
            rm -f "$dir"/*_"$v"_"$arch".deb
        done
    done
done

# --- the indexes and the signed Release files -----------------------------------------------
cd "$outdir"
for suite in "${SUITES[@]}"; do
    rm -rf "dists/$suite"
    for arch in ${ARCHES[$suite]}; do
        dir=dists/$suite/main/binary-$arch
        mkdir -p "$dir"
        # Paths in Filename: are relative to the repository's root (apt adds them to URIs:).
        apt-ftparchive --arch "$arch" packages "pool/$suite" > "$dir/Packages" 2> "$dir/.warnings" \
            || { cat "$dir/.warnings" >&2; die "apt-ftparchive packages failed for $suite/$arch"; }
        rm -f "$dir/.warnings"
        gzip -9nk "$dir/Packages"
        xz -k "$dir/Packages"
        [ -s "$dir/Packages" ] || log "warning: no packages for $suite/$arch"
    done
    release=$(apt-ftparchive \
        -o APT::FTPArchive::Release::Origin="$ORIGIN" -o APT::FTPArchive::Release::Label="$ORIGIN" \
        -o APT::FTPArchive::Release::Suite="$suite" -o APT::FTPArchive::Release::Codename="$suite" \
        -o APT::FTPArchive::Release::Architectures="${ARCHES[$suite]}" \
        -o APT::FTPArchive::Release::Components=main \
        -o APT::FTPArchive::Release::Description="${DESCRIPTION[$suite]}" \
        release "dists/$suite")
    printf '%s\n' "$release" > "dists/$suite/Release"
    gpg_sign --clearsign -o "dists/$suite/InRelease" "dists/$suite/Release"
    gpg_sign --detach-sign --armor -o "dists/$suite/Release.gpg" "dists/$suite/Release"
done

# --- what a kiosk installs: the key and the source ----------------------------------------
gpg --batch --export --export-options export-minimal "$key" > "$KEYRING"
[ -s "$KEYRING" ] || die "gpg exported no public key for $key"
{
    echo "# bubble-kiosk's apt repository: copy to /etc/apt/sources.list.d/bubble-kiosk.sources,"
    echo "# and $KEYRING to /usr/share/keyrings/. Suites: bookworm on Debian 12,"
    echo "# trixie on Debian 13 and Raspberry Pi OS trixie."
    [ -n "$url" ] || echo "# Edit URIs: to where this folder is served (make repo REPO_URL=... writes it)."
    echo "Types: deb"
    echo "URIs: ${url:-https://apt.example.org/bubble-kiosk}"
    echo "Suites: bookworm"
    echo "Components: main"
    echo "Signed-By: /usr/share/keyrings/$KEYRING"
} > bubble-kiosk.sources

for suite in "${SUITES[@]}"; do
    for arch in ${ARCHES[$suite]}; do
        printf '%-9s %-6s %s\n' "$suite" "$arch" \
            "$(awk '/^Package:/ { p = $2 } /^Version:/ { printf "%s%s=%s", sep, p, $2; sep = " " }' "dists/$suite/main/binary-$arch/Packages")" >&2
    done
done
log "signed by $(gpg --batch --with-colons --list-keys "$key" | awk -F: '$1 == "uid" { print $10; exit }') ($key)"
log "repository in $outdir: serve it, then on a kiosk see bubble-kiosk.sources"
