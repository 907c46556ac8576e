#!/usr/bin/env bash
# Builds and installs the Citus extension from a release source tarball into the local
# PostgreSQL (the one pg_config names). `make citus` runs it only when citus.so is missing and
# CITUS_SOURCE names a tarball; everyone else installs Citus from its own apt repository or runs
# the citusdata/citus image (docker-compose.yml).
set -euo pipefail

src="${1:?usage: build-citus.sh CITUS_TARBALL}"
case "$src" in /*) ;; *) src="$PWD/$src" ;; esac
[ -r "$src" ] || { echo "build-citus: no readable tarball at $src" >&2; exit 1; }
# CITUS_SHA256, when set, is the tarball's expected checksum: a different file is refused.
if [ -n "${CITUS_SHA256:-}" ]; then
	got="$(sha256sum "$src" | cut -d' ' -f1)"
	[ "$got" = "$CITUS_SHA256" ] || { echo "build-citus: $src has sha256 $got, want $CITUS_SHA256" >&2; exit 1; }
fi

SUDO="${SUDO:-}"
if [ -z "$SUDO" ] && [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; fi

# Build dependencies from Debian's apt, installed only when a header or pg_config is missing.
deps="postgresql-server-dev-15 libcurl4-openssl-dev liblz4-dev libzstd-dev libkrb5-dev
      libselinux1-dev libxslt1-dev libpam0g-dev libreadline-dev"
missing=""
for d in $deps; do dpkg -s "$d" >/dev/null 2>&1 || missing="$missing $d"; done
if [ -n "$missing" ]; then
	echo "installing Citus build dependencies from apt:$missing"
	$SUDO apt-get update -qq
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/citus-build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
tar -xzf "$src" -C "$work"
dir="$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -n 1)"

# Debian's PostgreSQL 15 minor releases declare have_createdb_privilege (backported from 16);
# Citus's compatibility header then redefines it as static inline and the compile fails. Drop
# the header's copy so the server's function is used; the edit is a no-op where it is absent.
compat="$dir/src/include/pg_version_compat.h"
if [ -f "$compat" ] && grep -q '^have_createdb_privilege(void)' "$compat" &&
	grep -rqs 'have_createdb_privilege' "$(pg_config --includedir-server)"; then
	awk '
		/^static inline bool$/ { held = $0; next }
		held != "" && /^have_createdb_privilege\(void\)$/ { skip = 1; held = ""; next }
		held != "" { print held; held = "" }
		skip && /^}$/ { skip = 0; next }
		!skip { print }
	' "$compat" >"$compat.new" && mv "$compat.new" "$compat"
fi

cd "$dir"
./configure --quiet
# with_llvm=no: no JIT bitcode, which would double the compile for nothing the service uses.
make -s -j"${CITUS_BUILD_JOBS:-2}" with_llvm=no
$SUDO make -s with_llvm=no install
echo "installed citus into $(pg_config --pkglibdir)"
