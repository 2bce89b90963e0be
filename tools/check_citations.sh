#!/usr/bin/env bash
# Fails when a comment or doc cites a section of a reference file that has no such heading.
#
#   bash tools/check_citations.sh [REPO_ROOT]      default: this script's ../
#
# A citation is a file name ending in .md (or a markdown link to one) followed by one or
# more section numbers:
#   docs/reference/protocol.md §2.5          protocol.md §6.5–6.6
#   rest-api.md §3.13–§3.14, §3.15           agents-and-cli.md §A.5.2
# Each number must be the number of a heading in the file it names ("## 2.5 Limits",
# "## 1. Naming", "### A.5.2 Agent pool"); a range is checked at both ends. A file named
# with a folder ("docs/reference/x.md") must exist at that path, from the repository root
# or from the citing file's folder; a bare name is looked up in docs/reference/, then docs/.
# Text files under the repository are read; third_party/, node_modules/, .git and build
# folders are not. Prints one line per bad citation (file:line: what) and exits 1, or one
# summary line and exits 0. A bare "§3.1" with no file name before it is not checked: the
# file's opening comment names the reference it follows.
set -euo pipefail

source "$(dirname "$0")/citation_files.sh"
citation_start "$0" "$@"

citation_files | perl -CSD -e '
use strict; use warnings; use Cwd ();
my $root = Cwd::abs_path(".");
my %headings;  # path -> { number -> 1 }, read on first use
sub headings_of {
  my ($path) = @_;
  return $headings{$path} if exists $headings{$path};
  my %h;
  if (open(my $f, "<:encoding(UTF-8)", $path)) {
    my $fence = 0;
    while (my $l = <$f>) {
      $fence = !$fence if $l =~ /^\s*```/;
      next if $fence;
      # "## 2.5 Limits", "## 1. Naming", "### A.5.2 Agent pool", "## Part A — ...", "## §3 ..."
      if ($l =~ /^#{1,6}\s+(?:Part\s+)?\x{a7}?([A-Z](?:\.\d+)*|\d+(?:\.\d+)*)\.?(?:\s|$)/) { $h{$1} = 1; }
    }
    close $f;
  } else { return $headings{$path} = undef; }
  return $headings{$path} = \%h;
}
my $SEC = qr/[A-Z](?:\.\d+)*|\d+(?:\.\d+)*/;
my $bad = 0; my $seen = 0;
my @files = do { local $/ = "\0"; map { chomp; $_ } <STDIN> };
for my $file (@files) {
  open(my $in, "<:encoding(UTF-8)", $file) or next;
  (my $dir = $file) =~ s{/[^/]*$}{};
  my $n = 0;
  while (my $line = <$in>) {
    $n++;
    next unless index($line, "\x{a7}") >= 0;
    while ($line =~ /(?<![\w.\/-])((?:[\w.-]+\/)*)([A-Za-z][\w-]*)\.md\)?\s+\(?\x{a7}\x{a7}?($SEC)((?:\s*(?:\x{2013}|\x{2014}|-)\s*\x{a7}?(?:$SEC)|\s*(?:,|and|or|\/|&)\s*\x{a7}(?:$SEC))*)/g) {
      my ($prefix, $name, $first, $rest) = ($1, $2, $3, $4);
      my @secs = ($first);
      push @secs, $1 while $rest =~ /($SEC)/g;
      my $target;
      if ($prefix ne "") {
        for my $p ("$prefix$name.md", "$dir/$prefix$name.md") {
          (my $q = $p) =~ s{^\./}{};
          my $abs = -f $q ? Cwd::abs_path($q) : undef;
          if (defined $abs && index($abs, "$root/") == 0) { $target = $q; last; }
        }
      } else {
        for my $p ("docs/reference/" . lc($name) . ".md", "docs/" . lc($name) . ".md") {
          if (-f $p) { $target = $p; last; }
        }
      }
      (my $where = $file) =~ s{^\./}{};
      unless (defined $target) {
        print "$where:$n: $prefix$name.md: no such file in this repository\n"; $bad++; next;
      }
      my $h = headings_of($target);
      for my $s (@secs) {
        $seen++;
        next if $h->{$s};
        print "$where:$n: $prefix$name.md \x{a7}$s: $target has no heading numbered $s\n"; $bad++;
      }
    }
  }
  close $in;
}
if ($bad) { exit 1; }
print "citations: $seen section references resolve\n";
'
