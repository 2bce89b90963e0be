#!/usr/bin/env bash
# The packaged configuration file names every key `buzz serve` accepts, and no
# other: each key of `buzz serve --help` is a `key:` or `#key:` line of the
# file (ctest package_config_keys). A key added to server/app/config.cpp
# without its line here fails the test.
# Usage: check_config_keys.sh BUZZ_BINARY CONFIG_FILE
set -euo pipefail
buzz=$1 file=$2

# `--config` and `--open` are flags only, not keys of the file.
mapfile -t keys < <("$buzz" serve --help | sed -n 's/^  --\([a-z0-9-]*\) .*/\1/p' | grep -vx -e config -e open)
((${#keys[@]} > 10)) || { echo "no keys read from '$buzz serve --help'" >&2; exit 1; }
mapfile -t listed < <(sed -n 's/^#\{0,1\}\([a-z0-9-]*\):.*/\1/p' "$file")

# Sets, not `printf | grep -q` pipelines: under pipefail, grep quitting at its
# first match could fail printf with SIGPIPE, and a listed key read as missing.
declare -A in_help in_file
for k in "${keys[@]}"; do in_help[$k]=1; done
for k in "${listed[@]}"; do in_file[$k]=1; done
status=0
for k in "${keys[@]}"; do
  [[ -n ${in_file[$k]:-} ]] || { echo "$file: no line for key '$k' (buzz serve --help lists it)"; status=1; }
done
for k in "${listed[@]}"; do
  [[ -n ${in_help[$k]:-} ]] || { echo "$file: '$k' is not a key of buzz serve"; status=1; }
done
((status == 0)) && echo "$file: all ${#keys[@]} keys of buzz serve"
exit $status
