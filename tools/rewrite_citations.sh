#!/usr/bin/env bash
# Rewrites citations of the protocol reference to name its path in this repository.
#
#   bash tools/rewrite_citations.sh [REPO_ROOT]     default: this script's ../
#
# For every NAME with a file docs/reference/NAME.md:
#   protocol.md §2.5             -> docs/reference/protocol.md §2.5
#   agents-and-cli.md Part B     -> docs/reference/agents-and-cli.md Part B
#   shared/spec/huddle.md        -> docs/reference/huddle.md  (also spec/…, ../shared/spec/…)
#   [x](../../shared/spec/p.md)  -> [x](../../docs/reference/p.md)  (a link stays relative)
#   (media.md)                   -> (docs/reference/media.md)   a bare name, except in docs/
#                                   where docs/NAME.md is the project's own page of that name
# Idempotent: a name already behind a folder is left alone, so it can be re-run after a
# merge. Files under docs/reference/, third_party/, node_modules/ and build folders are not
# touched, nor the citation scripts; a file is written only when its text changes.
# Prints the files it changed. tools/check_citations.sh then checks every section number.
set -euo pipefail

source "$(dirname "$0")/citation_files.sh"
citation_start "$0" "$@"
NAMES=$(cd docs/reference && ls *.md | grep -v '^README\.md$' | sed 's/\.md$//' | paste -sd'|')

# Not the reference itself, nor the three citation scripts (their comments show examples).
citation_files -o -path ./docs/reference -o -name 'check_citations.sh' -o -name 'rewrite_citations.sh' \
  -o -name 'citation_files.sh' | NAMES="$NAMES" perl -CSD -e '
use strict; use warnings;
my $N = $ENV{NAMES};
my @files = do { local $/ = "\0"; map { chomp; $_ } <STDIN> };
for my $file (@files) {
  open(my $in, "<:encoding(UTF-8)", $file) or next;
  local $/; my $text = <$in>; close $in;
  my $orig = $text;
  (my $rel = $file) =~ s{^\./}{};
  my $depth = () = $rel =~ m{/}g;
  my $up = $depth ? join("/", ("..") x $depth) . "/" : "";
  my $in_docs = $rel =~ m{^docs/[^/]+$};
  # A markdown link into the outside spec folder: keep it relative to this file.
  $text =~ s{\]\((?:\.\./)*(?:shared/)?spec/($N)\.md}{"](${up}docs/reference/" . lc($1) . ".md"}gie;
  # A path into the outside spec folder.
  $text =~ s{(?<![\w/.-])(?:\.\./)*(?:shared/)?spec/($N)\.md}{"docs/reference/" . lc($1) . ".md"}gie;
  # A bare name before a section or a part.
  $text =~ s{(?<![\w/.-])($N)\.md(?=\s+\(?\x{a7}|\s+Part\s+[A-Z]\b)}{"docs/reference/" . lc($1) . ".md"}gie;
  # Any other bare name, unless it is a link target or, in docs/, the name of a page there.
  $text =~ s{(?<![\w/.\[-])(?<!\]\()($N)\.md(?![\w-])}{
    my $n = lc($1);
    ($in_docs && -f "docs/$n.md") ? $1 . ".md" : "docs/reference/$n.md"
  }gie;
  next if $text eq $orig;
  open(my $out, ">:encoding(UTF-8)", $file) or die "$file: $!";
  print $out $text; close $out;
  print "$rel\n";
}
'
