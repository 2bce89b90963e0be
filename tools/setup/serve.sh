#!/usr/bin/env bash
# Quick start, part 1: install dependencies, build, and run the relay on the
# embedded store (data under ./data unless BUZZ_DATA_DIR or --data-dir says
# otherwise). Extra arguments go to `buzz serve`.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/setup/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target buzz
exec ./build/buzz serve "$@"
