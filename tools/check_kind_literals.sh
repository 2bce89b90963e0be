#!/usr/bin/env bash
# Fails when production code compares or sets an event kind with a bare number
# (`e.kind == 9007`, `kind = 5;`, `case 40003:`) instead of its name from
# engine/kind_numbers.h. NIP-01's kind ranges in engine/kinds.h are the one exception.
#
#   bash tools/check_kind_literals.sh [REPO_ROOT]      default: this script's ../
set -euo pipefail
root="${1:-$(dirname "$0")/..}"
cd "$root"

hits=$(grep -rnE --include='*.cpp' --include='*.h' \
  -e 'kind\)? ?(==|!=|<=|>=|<|>) ?[0-9]+\b' \
  -e '\bkind = [0-9]+;' \
  -e 'case [0-9]{4,5}:' \
  engine server migrate index net tools |
  grep -vE '^engine/kinds\.h:.*0000|kind = 0;|65535' || true)
if [[ -n "$hits" ]]; then
  echo "$hits"
  echo "kind numbers must be named: use engine/kind_numbers.h" >&2
  exit 1
fi
echo "kind literals: none outside engine/kind_numbers.h"
