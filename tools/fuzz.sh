#!/usr/bin/env bash
# Runs the libFuzzer targets (tests/fuzz/) against the relay's parsers.
#
#   bash tools/fuzz.sh [--seconds N] [TARGET...]     default: 60 s each, every target
#
# Each target starts from its saved corpus (tests/fuzz/corpus/<target>/) in a
# scratch copy, so the repository only changes when you decide it should. An
# input that breaks an invariant is written to build-fuzz/crashes/<target>/;
# add it to the corpus and the README's test command replays it from then on.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
targets=()
while (($#)); do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done

# clang and its libFuzzer runtime: the only extra packages fuzzing needs.
for p in clang libclang-rt-14-dev; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev >/dev/null
    break
  fi
done
bash tools/setup/install-deps.sh
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz

if ((${#targets[@]} == 0)); then
  for f in tests/fuzz/*_fuzz.cpp; do targets+=("$(basename "$f" _fuzz.cpp)"); done
fi
status=0
for t in "${targets[@]}"; do
  work="build-fuzz/corpus/$t" crashes="build-fuzz/crashes/$t"
  mkdir -p "$work" "$crashes"
  cp -n "tests/fuzz/corpus/$t/"* "$work/" 2>/dev/null || true
  echo "== $t: ${seconds}s"
  if ! "build-fuzz/tests/fuzz/${t}_fuzz" "$work" -max_total_time="$seconds" -max_len=65536 \
        -artifact_prefix="$crashes/" -print_final_stats=1 2>"build-fuzz/$t.log"; then
    echo "   FAILED: see build-fuzz/$t.log and $crashes/"
    status=1
  fi
  grep -E '^(stat::number_of_executed_units|stat::new_units_added)' "build-fuzz/$t.log" | sed 's/^/   /' || true
done
exit "$status"
