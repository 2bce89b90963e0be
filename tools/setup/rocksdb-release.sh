#!/usr/bin/env bash
# Opt-in, for benchmarking only: builds the same RocksDB version as Debian's
# librocksdb-dev from Debian's own source package, as a release build (NDEBUG,
# SSE4.2), and installs it under PREFIX (default /opt/rocksdb-release).
# Debian's package keeps RocksDB's assertions on; docs/performance.md says what
# they cost. The README's commands keep using the package; to build against this:
#   BUZZ_ROCKSDB_RELEASE=/opt/rocksdb-release cmake --preset release-rocksdb
#   cmake --build --preset release-rocksdb
set -euo pipefail
prefix="${1:-/opt/rocksdb-release}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

version="$(dpkg-query -W -f='${source:Version}' librocksdb-dev)"
if ! apt-get source --print-uris rocksdb >/dev/null 2>&1; then
  # Debian ships no source lines by default: add them for bookworm.
  cat > /etc/apt/sources.list.d/debian-src.sources <<SOURCES
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  apt-get update -qq
fi
apt-get install -y -qq --no-install-recommends dpkg-dev libbz2-dev liblz4-dev libsnappy-dev libzstd-dev >/dev/null
cd "$work"
apt-get source -qq "rocksdb=$version" >/dev/null
cd rocksdb-*/
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPORTABLE=OFF -DFORCE_SSE42=ON \
  -DWITH_BZ2=ON -DWITH_LZ4=ON -DWITH_ZLIB=ON -DWITH_ZSTD=ON -DWITH_SNAPPY=ON -DWITH_GFLAGS=OFF \
  -DWITH_TESTS=OFF -DWITH_TOOLS=OFF -DWITH_CORE_TOOLS=OFF -DWITH_BENCHMARK_TOOLS=OFF \
  -DROCKSDB_BUILD_SHARED=OFF -DFAIL_ON_WARNINGS=OFF -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
cmake --build build
cmake --install build >/dev/null
echo "RocksDB $version (release) installed in $prefix"
