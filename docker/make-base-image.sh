#!/usr/bin/env bash
# Make a local Debian bookworm base image with Python 3.11, pip and venv, without any
# image registry: debootstrap a minimal root file system from the Debian mirror apt
# already uses on this host, then `docker import` it.
#
#   docker/make-base-image.sh [TAG]        # default TAG: cabo-arena-base:bookworm
#
# Idempotent: does nothing if TAG exists, unless FORCE=1. Needs root (debootstrap) and a
# running Docker engine. Env: FORCE=1 rebuild; MIRROR=<url> override the Debian mirror;
# UPGRADE=0 skip applying bookworm-updates/-security on top of the release;
# HOST_CAS=0 do not copy this host's local CA certificates (/usr/local/share/ca-certificates,
# e.g. a TLS-intercepting proxy's, which pip needs to reach PyPI during image builds here);
# DEBOOTSTRAP_CACHE_DIR=<dir> keep downloaded .debs there for the next FORCE=1 run.
set -euo pipefail

TAG=${1:-cabo-arena-base:bookworm}
SUITE=bookworm
START=$EPOCHREALTIME
APT_OPTS=(-o DPkg::Lock::Timeout=300 -o Acquire::Retries=3)

say() { echo "make-base-image: $*" >&2; }
die() { say "ERROR: $*"; exit 1; }
elapsed() { awk -v a="$START" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

command -v docker >/dev/null 2>&1 || die "no docker client on PATH (Debian: apt-get install docker.io)"
timeout 20 docker info >/dev/null 2>&1 || die "the Docker engine does not answer (docker info); start dockerd first"

if [ "${FORCE:-0}" != 1 ] && docker image inspect "$TAG" >/dev/null 2>&1; then
    say "$TAG already exists; nothing to do (FORCE=1 rebuilds it) [$(elapsed) s]"
    exit 0
fi
[ "$(id -u)" = 0 ] || die "must run as root (debootstrap needs chroot and mknod)"

# The first URI apt uses here for SUITE (main component), from one-line *.list files
# and deb822 *.sources files; prints nothing if there is none.
apt_uri_for() {
    local suite=$1 file
    for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$file" ] || continue
        awk -v suite="$suite" '
            $1 == "deb" { i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/ && i < NF) i++; i++ }
                          if ($(i + 1) == suite) { print $i; exit } }' "$file"
    done
    for file in /etc/apt/sources.list.d/*.sources; do
        [ -f "$file" ] || continue
        awk -v suite="$suite" '
            function flush() {
                if (!done && enabled != "no" && (" " types " ") ~ / deb / && (" " suites " ") ~ (" " suite " ") && uris != "") {
                    split(uris, u, " "); print u[1]; done = 1
                }
                types = suites = uris = enabled = ""
            }
            /^[ \t]*#/ { next }
            /^[ \t]*$/ { flush(); next }
            { key = tolower($1); $1 = ""; sub(/^ +/, "") }
            key == "types:" { types = $0 } key == "suites:" { suites = $0 }
            key == "uris:" { uris = $0 } key == "enabled:" { enabled = tolower($0) }
            END { flush() }' "$file"
    done
}

MIRROR=${MIRROR:-$(apt_uri_for "$SUITE" | head -n 1)}
if [ -z "$MIRROR" ]; then
    MIRROR=http://deb.debian.org/debian
    say "no '$SUITE' entry in this host's apt sources; using $MIRROR"
fi
UPDATES_URI=$(apt_uri_for "$SUITE-updates" | head -n 1)
SECURITY_URI=$(apt_uri_for "$SUITE-security" | head -n 1)

if ! command -v debootstrap >/dev/null 2>&1; then
    say "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get "${APT_OPTS[@]}" install -y -qq debootstrap >/dev/null 2>&1 || {
        DEBIAN_FRONTEND=noninteractive apt-get "${APT_OPTS[@]}" update -qq &&
            DEBIAN_FRONTEND=noninteractive apt-get "${APT_OPTS[@]}" install -y -qq debootstrap >/dev/null
    } || die "cannot install debootstrap with apt-get"
fi

ROOTFS=$(mktemp -d /var/tmp/cabo-arena-base.XXXXXX)
chmod 0755 "$ROOTFS"  # becomes the image's /: mktemp's 0700 would lock every non-root user out
cleanup() {
    # debootstrap and our chroot steps mount /proc etc.; never rm -rf through a mount
    local m
    for m in $(awk -v r="$ROOTFS" 'index($2, r "/") == 1 { print $2 }' /proc/mounts | sort -r); do
        umount -l "$m" 2>/dev/null || true
    done
    if awk -v r="$ROOTFS" 'index($2, r "/") == 1 { found = 1 } END { exit !found }' /proc/mounts; then
        say "WARNING: mounts left under $ROOTFS; not removing it"
    else
        rm -rf "$ROOTFS"
    fi
}
trap cleanup EXIT

LOG="$ROOTFS.log"
CACHE_OPT=()
if [ -n "${DEBOOTSTRAP_CACHE_DIR:-}" ]; then
    mkdir -p "$DEBOOTSTRAP_CACHE_DIR" && CACHE_OPT=(--cache-dir="$DEBOOTSTRAP_CACHE_DIR")
fi
say "debootstrap $SUITE from $MIRROR into $ROOTFS (log: $LOG)"
if ! debootstrap --variant=minbase --include=python3,python3-venv,python3-pip,ca-certificates \
        "${CACHE_OPT[@]}" "$SUITE" "$ROOTFS" "$MIRROR" >"$LOG" 2>&1; then
    tail -n 30 "$LOG" >&2
    [ -f "$ROOTFS/debootstrap/debootstrap.log" ] && tail -n 30 "$ROOTFS/debootstrap/debootstrap.log" >&2
    die "debootstrap failed (log: $LOG)"
fi
say "debootstrap done [$(elapsed) s]"

# apt sources inside the image: the same mirrors as this host, like the official images' layout
rm -f "$ROOTFS/etc/apt/sources.list"
{
    printf 'Types: deb\nURIs: %s\nSuites: %s%s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
        "$MIRROR" "$SUITE" "$([ -n "$UPDATES_URI" ] && echo " $SUITE-updates")"
    if [ -n "$SECURITY_URI" ]; then
        printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
            "$SECURITY_URI" "$SUITE"
    fi
} >"$ROOTFS/etc/apt/sources.list.d/debian.sources"
# no .deb files or package lists kept in image layers (as in the official Debian images)
cat >"$ROOTFS/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
echo 'Acquire::Languages "none";' >"$ROOTFS/etc/apt/apt.conf.d/docker-no-languages"

# trust the same locally added CAs as this host
if [ "${HOST_CAS:-1}" = 1 ] && compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    mkdir -p "$ROOTFS/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$ROOTFS/usr/local/share/ca-certificates/"
    chroot "$ROOTFS" update-ca-certificates >>"$LOG" 2>&1 || die "update-ca-certificates failed (log: $LOG)"
    say "added this host's local CA certificates: $(cd /usr/local/share/ca-certificates && echo *.crt)"
fi

if [ "${UPGRADE:-1}" = 1 ] && { [ -n "$UPDATES_URI" ] || [ -n "$SECURITY_URI" ]; }; then
    say "applying $SUITE updates/security fixes"
    cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf" 2>/dev/null || true
    mount -t proc proc "$ROOTFS/proc"
    if ! { chroot "$ROOTFS" env DEBIAN_FRONTEND=noninteractive apt-get "${APT_OPTS[@]}" update -q &&
           chroot "$ROOTFS" env DEBIAN_FRONTEND=noninteractive apt-get "${APT_OPTS[@]}" upgrade -y -q; } >>"$LOG" 2>&1; then
        tail -n 30 "$LOG" >&2
        die "apt-get upgrade in the new root file system failed (log: $LOG)"
    fi
    umount "$ROOTFS/proc"
    say "upgrade done [$(elapsed) s]"
fi

# leave out what docker provides at run time and what only served the install
chroot "$ROOTFS" apt-get clean
rm -rf "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/var/cache/apt/*.bin "$ROOTFS"/tmp/* "$ROOTFS"/var/tmp/* \
    "$ROOTFS"/var/log/*.log "$ROOTFS"/var/log/apt/* "$ROOTFS"/root/.cache
: >"$ROOTFS/etc/resolv.conf"
: >"$ROOTFS/etc/hostname"
: >"$ROOTFS/etc/machine-id"
"$ROOTFS/usr/bin/python3" --version >/dev/null 2>&1 || die "the new root file system has no working python3"

say "importing as $TAG"
tar --numeric-owner --xattrs -C "$ROOTFS" -c . | docker import \
    --change 'ENV LANG=C.UTF-8' \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["python3"]' \
    --message "debootstrap --variant=minbase $SUITE from $MIRROR (docker/make-base-image.sh)" \
    - "$TAG" >/dev/null || die "docker import failed (is the engine still running?)"

SIZE=$(docker image inspect -f '{{.Size}}' "$TAG")
PY=$(docker run --rm --network=none "$TAG" python3 --version 2>&1 || echo "python3 did not run")
rm -f "$LOG"
say "made $TAG: $(awk -v s="$SIZE" 'BEGIN { printf "%.0f MB", s / 1e6 }'), $PY [$(elapsed) s]"
