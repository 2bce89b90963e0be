# Sourced by tools/check_citations.sh and tools/rewrite_citations.sh: the one rule for which
# files may hold citations of the protocol reference, and the shared --help.
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

# Prints the calling script's opening comment, without the #s, when asked for help.
citation_help() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$1"
}
