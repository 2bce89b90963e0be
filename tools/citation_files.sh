# Sourced by tools/check_citations.sh and tools/rewrite_citations.sh: the one rule for which
# files may hold citations of the protocol reference, and how both start.
#
#   citation_files [FIND_PRUNE_TEST...]   NUL-separated paths under the current folder, sorted
#
# Text files of code, scripts and docs; never .git, third_party/, node_modules/ or build
# folders. Extra find tests (e.g. -o -path ./docs/reference) prune more.
citation_files() {
  find . \( -name .git -o -name third_party -o -name node_modules -o -name 'build*' "$@" \) -prune -o \
    -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.c' -o -name '*.js' -o -name '*.mjs' \
    -o -name '*.jsx' -o -name '*.sh' -o -name '*.md' -o -name '*.txt' -o -name '*.yaml' \
    -o -name '*.yml' -o -name '*.py' -o -name '*.cmake' -o -name '*.gp' -o -name '*.html' \) \
    -print0 | sort -z
}

# The scripts' common start: --help prints the calling script's opening comment (without
# the #s) and exits; otherwise changes to REPO_ROOT (the first argument, or the folder
# above the script).
citation_start() {
  local script="$1"
  shift
  if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$script"
    exit 0
  fi
  cd "${1:-$(cd "$(dirname "$script")/.." && pwd)}"
}
