#include "tools/cli/diff_message.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "engine/kind_numbers.h"
#include "tools/cli/cli_error.h"
#include "tools/cli/events.h"

namespace buzz::cli {
namespace {

constexpr size_t kMaxDiffBytes = 61440;
constexpr std::string_view kNotice = "\n\n[diff truncated \xE2\x80\x94 exceeded size limit]";

void check_sha(const char* flag, const std::string& sha) {
  const bool hex = std::all_of(sha.begin(), sha.end(), [](unsigned char c) { return std::isxdigit(c); });
  if (sha.size() < 7 || !hex) {
    throw CliError(Category::kUser, std::string("--") + flag + " must be a hex commit SHA of at least 7 characters: " + sha);
  }
}

// The largest cut ≤ at that does not split a UTF-8 sequence.
size_t utf8_floor(const std::string& s, size_t at) {
  while (at > 0 && at < s.size() && (uint8_t(s[at]) & 0xC0) == 0x80) --at;
  return at;
}

}  // namespace

std::optional<std::string> truncated_diff(const std::string& diff) {
  if (diff.size() <= kMaxDiffBytes) return std::nullopt;
  const size_t budget = kMaxDiffBytes - kNotice.size();
  const std::string_view head(diff.data(), budget);
  size_t cut = head.rfind("\n@@");
  if (cut == std::string_view::npos || cut == 0) cut = head.rfind('\n');
  if (cut == std::string_view::npos || cut == 0) cut = budget;
  return diff.substr(0, utf8_floor(diff, cut)) + std::string(kNotice);
}

std::optional<std::string> language_of(const std::string& path) {
  static const std::map<std::string, std::string> kByExtension = {
      {"rs", "rust"},     {"ts", "typescript"}, {"tsx", "typescript"}, {"js", "javascript"}, {"jsx", "javascript"},
      {"py", "python"},   {"go", "go"},         {"java", "java"},      {"rb", "ruby"},       {"c", "c"},
      {"h", "c"},         {"cpp", "cpp"},       {"cc", "cpp"},         {"cxx", "cpp"},       {"hpp", "cpp"},
      {"cs", "csharp"},   {"swift", "swift"},   {"kt", "kotlin"},      {"kts", "kotlin"},    {"scala", "scala"},
      {"sh", "bash"},     {"bash", "bash"},     {"zsh", "bash"},       {"sql", "sql"},       {"html", "html"},
      {"htm", "html"},    {"css", "css"},       {"scss", "css"},       {"sass", "css"},      {"json", "json"},
      {"yaml", "yaml"},   {"yml", "yaml"},      {"toml", "toml"},      {"xml", "xml"},       {"md", "markdown"},
      {"markdown", "markdown"}};
  const std::string name = path.substr(path.find_last_of('/') + 1);
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (lower == "dockerfile") return "dockerfile";
  const size_t dot = lower.rfind('.');
  if (dot == std::string::npos) return std::nullopt;
  auto it = kByExtension.find(lower.substr(dot + 1));
  if (it == kByExtension.end()) return std::nullopt;
  return it->second;
}

engine::Event diff_event(DiffMessage d) {
  if (!d.repo.starts_with("http://") && !d.repo.starts_with("https://")) {
    throw CliError(Category::kUser, "--repo must start with http:// or https://: " + d.repo);
  }
  check_sha("commit", d.commit);
  if (d.parent_commit) check_sha("parent-commit", *d.parent_commit);
  if (d.source_branch.has_value() != d.target_branch.has_value()) {
    throw CliError(Category::kUser, "--source-branch and --target-branch must both be provided or both omitted");
  }
  if (d.pr && *d.pr == 0) throw CliError(Category::kUser, "--pr must be greater than 0");
  if (!d.lang && d.file) d.lang = language_of(*d.file);

  std::optional<std::string> cut = truncated_diff(d.diff);
  engine::Event e =
      channel_event(kind::kDiff, d.channel, {{"repo", d.repo}, {"commit", d.commit}}, cut ? *cut : d.diff);
  if (d.file) e.tags.push_back({"file", *d.file});
  if (d.parent_commit) e.tags.push_back({"parent-commit", *d.parent_commit});
  if (d.source_branch) e.tags.push_back({"branch", *d.source_branch, *d.target_branch});
  if (d.pr) e.tags.push_back({"pr", std::to_string(*d.pr)});
  if (d.lang) e.tags.push_back({"l", *d.lang});
  if (d.description) e.tags.push_back({"description", *d.description});
  if (cut) e.tags.push_back({"truncated", "true"});
  std::string alt = "Diff";
  if (d.file) alt += ": " + *d.file + (d.description ? " \xE2\x80\x94 " + *d.description : "");
  e.tags.push_back({"alt", alt});
  if (d.reply_to) append_reply_tags(e.tags, *d.reply_to, *d.reply_to);
  return e;
}

}  // namespace buzz::cli
