#!/usr/bin/env bash
# fresh-machine.sh: `make test` as on a fresh machine, each step timed. It makes a
# Debian 12 (bookworm) root with debootstrap under $FRESH_ROOT (default
# /var/tmp/diagagent-fresh) holding what a new build machine carries before the
# project touches it (Go at /usr/local/go, bind-mounted read-only; gcc, make, git,
# ca-certificates), and a clone of this repository's HEAD, with no Go module or build
# cache. Inside it, it times scripts/test-deps.sh (the install step: every Debian
# package the suite drives, and the pinned nfpm) and then `make test`. Needs root, debootstrap and Debian's
# package archive; removes the root at the end unless FRESH_KEEP=1.
#   scripts/fresh-machine.sh        # about 15 minutes: the root, the install, the suite
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
	echo "fresh-machine: needs root (debootstrap, chroot, network namespaces)" >&2
	exit 1
fi
command -v debootstrap >/dev/null || { echo "fresh-machine: apt-get install debootstrap" >&2; exit 1; }
root=${FRESH_ROOT:-/var/tmp/diagagent-fresh}
if [ -e "$root" ]; then
	echo "fresh-machine: $root exists; remove it first" >&2
	exit 1
fi
mounts=()
cleanup() {
	trap - EXIT INT TERM
	for ((k = ${#mounts[@]} - 1; k >= 0; k--)); do umount -R "${mounts[k]}" 2>/dev/null || umount -l "${mounts[k]}" || true; done
	if [ "${FRESH_KEEP:-0}" != 1 ]; then rm -rf --one-file-system "$root"; fi
}
trap cleanup EXIT INT TERM
bind() { # bind SRC DEST [OPTS]: a recursive bind mount, undone at the end
	mkdir -p "$root$2"
	mount --rbind "$1" "$root$2"
	[ -z "${3:-}" ] || mount -o remount,bind,"$3" "$root$2"
	mounts+=("$root$2")
}
start=$(date +%s)
mkdir -p "$root"
# The root is a mount of its own, as / is on a machine: unshare -m and ip netns change
# its propagation, which a plain directory refuses.
mount --bind "$root" "$root" && mount --make-private "$root" && mounts+=("$root")
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >/dev/null
cp /etc/resolv.conf "$root/etc/resolv.conf"
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
bind /proc /proc
bind /sys /sys
bind /dev /dev
mkdir -p "$root/run" "$root/tmp"
mount -t tmpfs tmpfs "$root/run" && mounts+=("$root/run")
mount -t tmpfs tmpfs "$root/tmp" && mounts+=("$root/tmp")
bind /usr/local/go /usr/local/go ro
inside() { chroot "$root" env -i PATH=/usr/local/go/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb CI=true "$@"; }
inside apt-get update -qq
inside env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcc libc6-dev make git ca-certificates >/dev/null
# The machine's own certificate authorities (a proxy's, say), as a new machine of the
# kind carries them: the Go module proxy is reached through them.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
	cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
	inside update-ca-certificates >/dev/null
fi
git clone -q "$PWD" "$root/src"
echo "fresh-machine: the root is ready after $(($(date +%s) - start)) s: $(inside go version)"
t=$(date +%s)
inside bash -c 'cd /src && scripts/test-deps.sh'
echo "fresh-machine: the install step (scripts/test-deps.sh) took $(($(date +%s) - t)) s"
t=$(date +%s)
status=0
# Each line of the suite's output carries the seconds since it began: make echoes each
# step before it runs, and go test names each package as it ends.
inside bash -c 'set -o pipefail; cd /src && make test 2>&1 | while IFS= read -r l; do printf "[%4d s] %s\n" "$SECONDS" "$l"; done' || status=$?
echo "fresh-machine: make test took $(($(date +%s) - t)) s, exit $status"
exit $status
