#!/usr/bin/env bash
# Installs every build and test dependency of Buzz from Debian's packages.
# Idempotent: safe to run again; apt skips what is already installed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  librocksdb-dev liburing-dev libsimdjson-dev libsecp256k1-dev libssl-dev
  libxxhash-dev libyaml-cpp-dev libclucene-dev libmagic-dev zlib1g-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcurl4-openssl-dev libturbojpeg0-dev libpng-dev libwebp-dev libgif-dev
  libavformat-dev   # media: MP4 inspection of video uploads (FFmpeg's demuxer; docs/reference/media.md §3.3)
  libopus-dev   # huddles: the Opus frame check, and real audio in the tests and buzz-load
  nettle-dev    # the `buzz` front binary's SHA-256, which spares an agent command libcrypto's load
  libogg-dev    # huddle recordings: each participant's track as an Ogg Opus file (server/huddle/ogg_track.h)
  chromium fonts-noto-color-emoji   # the web client's browser tests (tests/web), headless
  libpq-dev postgresql
  libjemalloc-dev   # the relay's allocator (BUZZ_JEMALLOC, on by default)
  libhiredis-dev redis-server   # `buzz serve --pubsub redis://…`; its tests start their own redis-server
  lintian strace curl   # the Debian package's check (tools/package/check_install.sh)
)
# The web client's build and the npm-driven tests need Node.js with npm; machines that
# already carry a Node.js build (with its own npm) keep it.
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# `buzz migrate`'s tests start a throwaway cluster of their own (tests/migrate/pg_cluster.sh), and
# the multi-node tests a redis-server of their own (tests/cluster/redis_server.sh);
# the servers Debian's packages create and start are not used.
