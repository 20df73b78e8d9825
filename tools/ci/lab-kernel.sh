#!/usr/bin/env bash
# The lab kernel: Debian's User-Mode Linux from testing (forky), unpacked beside the machine's own
# (bookworm's `user-mode-linux`, a 6.1 kernel). Recent UML kernels can run their processes under
# seccomp instead of ptrace (`seccomp=on`): every syscall and page fault of a lab process then
# costs a signal instead of several host context switches, and the lab runs about twice as fast
# (node starts in 0.31 s instead of 0.77 s; docs/benchmarks.md). tools/lab picks this kernel when it is
# here and falls back to Debian's 6.1 otherwise.
#
# forky's binary needs glibc >= 2.38 (bookworm has 2.36): forky's libc6 is unpacked next to it and
# the binary's ELF interpreter and library path point there (patchelf). Nothing is installed: apt
# runs on a private sources list and cache, and verifies the archive's signature as usual.
# Idempotent; a failed download leaves the machine as it was (the lab then uses the 6.1 kernel).
set -euo pipefail

root=${FABRIK_LAB_KERNEL_DIR:-/var/cache/fabrik/lab-kernel}
# The version the lab is proven with. When the archive has moved on, the newest one is taken.
wanted=7.2um1

if [[ -x $root/current/linux.uml ]]; then exit 0; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian forky main" \
  >"$work/sources.list"
apt=(apt-get -qq -o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o APT::Sandbox::User=root
  -o Debug::NoLocking=1)

fail() {
  echo "lab-kernel: $1; the lab uses Debian's user-mode-linux (6.1, ptrace: about half as fast)" >&2
  exit 0
}

echo "lab-kernel: fetching user-mode-linux $wanted and libc6 from Debian forky into $root"
"${apt[@]}" update || fail "apt-get update of forky failed"
(cd "$work/debs" && { "${apt[@]}" download "user-mode-linux=$wanted" ||
  "${apt[@]}" download user-mode-linux; } && "${apt[@]}" download libc6) ||
  fail "downloading user-mode-linux or libc6 from forky failed"
deb=$(echo "$work"/debs/user-mode-linux_*.deb)
version=$(dpkg-deb -f "$deb" Version)
[[ $version == "$wanted" ]] || echo "lab-kernel: forky no longer has $wanted, taking $version" >&2

dpkg -x "$deb" "$work/uml"
dpkg -x "$work"/debs/libc6_*.deb "$work/libc"
dest=$root/user-mode-linux-$version
rm -rf "$dest.tmp"
mkdir -p "$dest.tmp/libc"
cp -a "$work"/libc/usr/lib/x86_64-linux-gnu/. "$dest.tmp/libc/"
cp -a "$work"/uml/usr/lib/uml/modules "$dest.tmp/modules"
install -m 0755 "$work/uml/usr/bin/linux.uml" "$dest.tmp/linux.uml"
# The final paths: the binary is patched for where it will live.
patchelf --set-interpreter "$dest/libc/ld-linux-x86-64.so.2" --set-rpath "$dest/libc" "$dest.tmp/linux.uml"
rm -rf "$dest"
mv "$dest.tmp" "$dest"
"$dest/linux.uml" --version >/dev/null || {
  rm -rf "$dest"
  fail "the unpacked kernel does not start"
}
ln -sfn "user-mode-linux-$version" "$root/current"
echo "lab-kernel: $dest ($("$dest/linux.uml" --version)), seccomp mode: $("$dest/linux.uml" --help | grep -c '^seccomp=')"
