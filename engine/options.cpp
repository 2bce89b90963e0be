// The option table's reading and help; see options.h.
#include "engine/options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <string_view>

namespace buzz::options {
namespace {

constexpr size_t kHelpWidth = 100;     // help wraps its text here
constexpr size_t kMaxTextColumn = 32;  // a longer left part puts its text on the next line

constexpr char kGlue = '\x01';         // a space help does not break a line at ("[env: X]")

bool is_section(const Option& o) { return !o.name && !o.env; }

// Columns on a terminal: UTF-8 code points ("…" is one), not bytes.
size_t width(std::string_view s) {
  return size_t(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// "--name VALUE" as help and the refusals show a row.
std::string spelled(const Option& o) {
  std::string s = "--" + std::string(o.name);
  if (o.value) s += " " + std::string(o.value);
  return s;
}

const Option* find_long(std::span<const Option> table, std::string_view name) {
  for (const Option& o : table) {
    if (o.name && name == o.name) return &o;
  }
  return nullptr;
}

const Option* find_short(std::span<const Option> table, char c) {
  for (const Option& o : table) {
    if (o.name && o.short_name == c) return &o;
  }
  return nullptr;
}

// One argv reading, kept apart from the answer it builds.
class ArgvReader {
 public:
  ArgvReader(std::span<const Option> table, int argc, char* const* argv, const Rules& rules)
      : table_(table), argc_(argc), argv_(argv), rules_(rules) {}

  Parsed read(int first) {
    for (int i = first; i < argc_ && out_.ok(); ++i) {
      const std::string_view arg = argv_[i];
      const bool is_long = arg.starts_with("--") && arg.size() > 2;
      const bool is_short = !is_long && arg.size() > 1 && arg[0] == '-' && arg[1] != '-';
      if (is_long) i = read_long(arg.substr(2), i);
      else if (is_short) i = read_short(arg, i);
      else if (rules_.stop_at_positional) return out_.next = i, std::move(out_);
      else if (rules_.positional) out_.positional.emplace_back(arg);
      else refuse("unexpected argument '" + std::string(arg) + "' found");
    }
    out_.next = argc_;
    if (out_.ok()) check_required();
    return std::move(out_);
  }

 private:
  int read_long(std::string_view body, int i) {
    const size_t eq = body.find('=');
    const std::string name(body.substr(0, eq));
    const Option* o = find_long(table_, name);
    if (!o) return refuse("unexpected argument '--" + name + "' found"), i;
    std::optional<std::string> inline_value;
    if (eq != std::string_view::npos) inline_value = std::string(body.substr(eq + 1));
    return take(*o, inline_value, i);
  }

  int read_short(std::string_view arg, int i) {
    const Option* o = find_short(table_, arg[1]);
    if (!o) return refuse("unexpected argument '" + std::string(arg.substr(0, 2)) + "' found"), i;
    std::optional<std::string> attached;
    if (arg.size() > 2) attached = std::string(arg.substr(arg[2] == '=' ? 3 : 2));
    return take(*o, attached, i);
  }

  // The row's value (inline, else the next argument) through its parser.
  int take(const Option& o, std::optional<std::string> value, int i) {
    if (!o.value && value) return refuse("unexpected value '" + *value + "' for '--" + o.name + "' found"), i;
    if (!o.value) value = "true";
    if (!value) {
      if (i + 1 >= argc_) return refuse("a value is required for '" + spelled(o) + "' but none was supplied"), i;
      value = argv_[++i];
    }
    if (!out_.given.insert(o.name).second && !o.repeatable && !o.last_wins) {
      return refuse("the argument '--" + std::string(o.name) + "' cannot be used multiple times"), i;
    }
    if (std::string why = o.parse(*value); !why.empty()) {
      refuse("invalid value '" + *value + "' for '--" + o.name + "': " + why);
    }
    return i;
  }

  void check_required() {
    std::string missing;
    for (const Option& o : table_) {
      if (o.required && o.name && !out_.given.count(o.name)) missing += "\n  " + spelled(o);
    }
    if (!missing.empty()) refuse("the following required arguments were not provided:" + missing);
  }

  void refuse(std::string why) {
    out_.outcome = Parsed::Outcome::kError;
    out_.error = std::move(why);
  }

  std::span<const Option> table_;
  int argc_;
  char* const* argv_;
  const Rules& rules_;
  Parsed out_;
};

// The words of text, wrapped to start at `column` and end before kHelpWidth.
std::string wrapped(const std::string& text, size_t column, size_t used) {
  std::string out;
  size_t at = used;
  for (size_t p = 0; p < text.size();) {
    const size_t end = std::min(text.find(' ', p), text.size());
    std::string word(text.data() + p, end - p);
    const size_t w = width(word);
    std::replace(word.begin(), word.end(), kGlue, ' ');
    if (at > column && at + 1 + w > kHelpWidth) {
      out += "\n" + std::string(column, ' ');
      at = column;
    } else if (at > column) {
      out += ' ';
      ++at;
    }
    out += word;
    at += w;
    p = end + 1;
  }
  return out;
}

// A tag kept on one line.
std::string glued(std::string tag) {
  std::replace(tag.begin(), tag.end(), ' ', kGlue);
  return tag;
}

std::string left_part(const Option& o) {
  if (!o.name) return "  " + std::string(o.env);
  std::string s = o.short_name ? std::string("  -") + o.short_name + ", " : "  ";
  return s + spelled(o);
}

}  // namespace

Option section(const char* title) { return Option{.help = title}; }

Parser text(std::string* target) {
  return [=](const std::string& v) -> std::string {
    *target = v;
    return {};
  };
}

Parser text(std::optional<std::string>* target) {
  return [=](const std::string& v) -> std::string {
    *target = v;
    return {};
  };
}

Parser append(std::vector<std::string>* target) {
  return [=](const std::string& v) -> std::string {
    target->push_back(v);
    return {};
  };
}

bool truthy(const std::string& text) {
  std::string l;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) l += char(std::tolower(static_cast<unsigned char>(c)));
  }
  return l == "1" || l == "true" || l == "yes" || l == "on";
}

Parser flag(bool* target) {
  return [=](const std::string& v) -> std::string {
    *target = truthy(v);
    return {};
  };
}

std::string parse_integer(const std::string& text, int64_t lo, int64_t hi, int64_t* out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  if (ec == std::errc() && end == text.data() + text.size() && *out >= lo && *out <= hi) return {};
  if (lo == 0 && hi == std::numeric_limits<int64_t>::max()) return "expected a non-negative integer";
  return "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
}

Parsed parse(std::span<const Option> table, int argc, char* const* argv, int first, const Rules& rules) {
  for (int i = first; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (rules.help && (a == "--help" || a == "-h")) return Parsed{.outcome = Parsed::Outcome::kHelp, .next = i};
  }
  for (int i = first; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (rules.version && (a == "--version" || a == "-V")) return Parsed{.outcome = Parsed::Outcome::kVersion, .next = i};
  }
  return ArgvReader(table, argc, argv, rules).read(first);
}

std::string apply_environment(std::span<const Option> table, const Parsed& parsed) {
  for (const Option& o : table) {
    if (!o.env || (o.name && parsed.given.count(o.name))) continue;
    const char* name = o.env;
    const char* value = std::getenv(name);
    if (!value && o.env_alias) value = std::getenv(name = o.env_alias);
    if (!value) continue;
    if (std::string why = o.parse(value); !why.empty()) {
      return "invalid value '" + std::string(value) + "' for " + name + ": " + why;
    }
  }
  return {};
}

std::string help(std::span<const Option> table) {
  size_t column = 0;
  for (const Option& o : table) {
    if (!is_section(o) && !o.hidden) column = std::max(column, width(left_part(o)) + 2);
  }
  column = std::min(column, kMaxTextColumn);
  std::string out;
  for (const Option& o : table) {
    if (o.hidden) continue;
    if (is_section(o)) {
      out += std::string(out.empty() ? "" : "\n") + o.help + "\n";
      continue;
    }
    std::string words = o.help;
    if (o.required) words += " (required)";
    if (o.repeatable) words += " (repeatable)";
    if (o.name && o.env) words += " " + glued("[env: " + std::string(o.env) + "]");
    if (o.default_text) words += " " + glued("[default: " + std::string(o.default_text) + "]");
    std::string line = left_part(o);
    if (width(line) + 2 > column) line += "\n" + std::string(column, ' ');
    else line += std::string(column - width(line), ' ');
    out += line + wrapped(words.starts_with(' ') ? words.substr(1) : words, column, column) + "\n";
  }
  return out;
}

}  // namespace buzz::options
