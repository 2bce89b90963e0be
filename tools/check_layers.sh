#!/usr/bin/env bash
# Fails when a source file includes a header from a folder it must not depend on.
#
#   bash tools/check_layers.sh [REPO_ROOT]      default: this script's ../
#
# The rules are the table at the top of this script. Every C++ file under a top
# folder the table names (engine/, server/, ...) is checked; tests/, bench/ and
# third_party/ are not. Prints one line per violation and exits 1, or one
# summary line and exits 0.
set -euo pipefail

# ---- The layer rules ---------------------------------------------------------
# One line per folder: the folder, then the rooted include prefixes its files
# may use ("engine/" allows #include "engine/event.h"). A folder's files may
# always include from the folder itself. A line covers the folder's sub-folders
# too, but the most specific folder wins (server/http/ over server/). "dir/*"
# covers only the files directly in dir/, not those in its sub-folders.
# A checked file no line covers is an error: a new folder needs its line here.
RULES='
engine/             engine/
net/                net/
index/              engine/ index/
migrate/            engine/ index/ migrate/     # engine interfaces, never server/
tools/              engine/ net/ tools/         # client side: never server/ or index/

server/common/      engine/ net/
server/team/        engine/ index/ server/common/
server/access/      engine/ net/ server/common/ server/team/
server/feeds/       engine/ index/ server/common/
server/pipeline/    engine/ index/ net/ server/common/ server/team/ server/access/ server/feeds/
server/relay/       engine/ index/ net/ server/common/ server/team/ server/access/ server/feeds/ server/pipeline/
server/ops/         engine/ net/ server/common/ server/pipeline/ server/feeds/
server/media/       engine/ net/ server/common/ server/team/ server/access/ server/pipeline/
server/workflows/   engine/ net/ server/common/ server/team/ server/access/ server/pipeline/
server/huddle/      engine/ net/ server/common/ server/team/ server/access/ server/pipeline/
server/web/         net/                        # the embedded browser client: bytes and HTTP only
server/http/        engine/ index/ net/ server/common/ server/team/ server/access/ server/feeds/ server/pipeline/ server/relay/ server/ops/ server/media/ server/web/ server/workflows/
server/door/        engine/ net/ server/common/ server/relay/ server/huddle/ server/http/   # the front door of the port: it routes, nothing more
server/app/         engine/ index/ net/ server/ tools/ migrate/  # the wiring and the CLI (client subcommands live in tools/)
'
# ------------------------------------------------------------------------------

case "${1:-}" in
  -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) echo "check_layers.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
esac
(($# <= 1)) || { echo "check_layers.sh: one argument at most (see --help)" >&2; exit 2; }
cd "${1:-$(dirname "$0")/..}"

# The top folders the table names, and the C++ files under them.
roots=()
for top in $(printf '%s\n' "$RULES" | sed 's/#.*//' | awk 'NF { split($1, p, "/"); print p[1] }' | sort -u); do
  [[ -d "$top" ]] && roots+=("$top")
done
((${#roots[@]})) || { echo "check_layers.sh: none of the table's folders is in $PWD" >&2; exit 2; }
mapfile -t files < <(find "${roots[@]}" -type f \
  \( -name '*.h' -o -name '*.hpp' -o -name '*.c' -o -name '*.cc' -o -name '*.cpp' \) | LC_ALL=C sort)

# awk reads three inputs: the table, the file list, then every quoted #include
# as path:line:text (/dev/null keeps grep off stdin when there are no files).
awk '
  function folder_of(path) { return substr(path, 1, match(path, /[^\/]*$/) - 1) }

  # The table line covering a file: the longest folder that holds it.
  function rule_of(path,    dir, r, base, best) {
    dir = folder_of(path); best = 0
    for (r = 1; r <= nrules; r++) {
      base = folder[r]
      if (only_direct[r] ? dir == base : substr(dir, 1, length(base)) == base)
        if (!best || length(base) > length(folder[best])) best = r
    }
    return best
  }

  FILENAME == ARGV[1] {
    sub(/#.*/, "")
    if (NF == 0) next
    nrules++
    only_direct[nrules] = ($1 ~ /\/\*$/)
    folder[nrules] = only_direct[nrules] ? substr($1, 1, length($1) - 1) : $1
    allowed[nrules] = ""
    for (i = 2; i <= NF; i++) allowed[nrules] = allowed[nrules] " " $i
    # The folder itself, unless the line names it: last, so messages read
    # like the table line.
    if (index(allowed[nrules] " ", " " folder[nrules] " ") == 0)
      allowed[nrules] = allowed[nrules] " " folder[nrules]
    next
  }

  FILENAME == ARGV[2] {
    if ($0 == "") next                # the list of no files
    nfiles++
    rule[$0] = rule_of($0)
    if (!rule[$0]) { print $0 ": folder has no layer rule in tools/check_layers.sh"; bad++ }
    next
  }

  {
    # path:line:#include "x/y.h" ...
    path = $0; sub(/:.*/, "", path)
    rest = substr($0, length(path) + 2)
    line = rest; sub(/:.*/, "", line)
    inc = substr(rest, index(rest, "\"") + 1); sub(/".*/, "", inc)
    r = rule[path]
    if (!r) next                      # already reported above
    n = split(allowed[r], prefixes, " ")
    for (i = 1; i <= n; i++)
      if (substr(inc, 1, length(prefixes[i])) == prefixes[i]) next
    print path ":" line ": includes \"" inc "\" but " folder[r] " may include only:" allowed[r]
    bad++
  }

  END {
    printf "layer check: %d files, %d violation%s\n", nfiles, bad, bad == 1 ? "" : "s"
    exit bad ? 1 : 0
  }
' <(printf '%s\n' "$RULES") \
  <(printf '%s\n' "${files[@]}") \
  <(grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' /dev/null "${files[@]}" || true)
