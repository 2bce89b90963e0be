#!/usr/bin/env bash
# Quick start, part 2: install dependencies, build with warnings as errors,
# check the Debian package, and run every test (unit, end-to-end against the
# real binary, nostr-tools, the web client in headless Chromium). The web
# client itself is bundled by the CMake build (server/web/README.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/setup/install-deps.sh
# npm ci again only when the lockfile is newer than the last install (npm writes
# node_modules/.package-lock.json), as the build does for the web client.
npm_ci() { [[ $1/node_modules/.package-lock.json -nt $1/package-lock.json ]] || (cd "$1" && npm ci --no-audit --no-fund --silent); }
npm_ci tests/e2e/js
npm_ci tests/web
cmake --preset ci >/dev/null
cmake --build --preset ci
# The Debian package from this build: lintian, installed, run as its service would (tools/package/).
bash tools/package/check_install.sh build-ci
# Four tests at a time on two cores: most of a test's time is spent waiting on a
# relay's sockets and timers, not computing (docs/performance.md, "Build and test time").
ctest --preset ci -j4 --timeout 300
