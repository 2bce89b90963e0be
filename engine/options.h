// The command-line option table of every `buzz` tool: `buzz acp` (and `acp models`),
// `buzz mcp`, `buzz proxy`, the agent commands (`buzz send-message …`) and `buzz-load`.
// A tool declares its options once, as rows (long and short name, environment
// variable, value placeholder, default, help, and the parser that sets the row's
// target); parse() reads argv against the rows, apply_environment() then reads the
// variables of the rows argv left unset (a flag wins over its variable), and help()
// writes the list --help prints. The refusals are clap's words, as the agent CLI's
// reference has them (docs/reference/agents-and-cli.md §B.1), and a tool exits
// kExitUsage on one, as well-known command lines do. In namespace buzz::options.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace buzz::options {

// The exit code of a command line the table refuses: nothing was started.
inline constexpr int kExitUsage = 2;

// Sets a row's target from one value's text: "" when accepted, else what was
// expected, which the refusal shows as "invalid value 'TEXT' for '--NAME': WHY".
// A switch's parser gets "true" from argv and the variable's text from the environment.
using Parser = std::function<std::string(const std::string& text)>;

struct Option {
  const char* name = nullptr;          // the long name, without "--"; null: an environment variable only
  char short_name = 0;                 // -x, or 0
  const char* env = nullptr;           // read by apply_environment when argv did not give the option
  const char* value = nullptr;         // the value's placeholder in help and refusals; null: a switch
  const char* default_text = nullptr;  // shown by help
  const char* help = "";
  Parser parse = {};
  bool required = false;               // must be given on the command line
  bool repeatable = false;             // given again, parsed again (else refused the second time)
  bool hidden = false;                 // parsed, but not listed by help
  const char* env_alias = nullptr;     // an older variable, read when env is unset
  bool last_wins = false;              // given again, the last value stands (neither refused nor listed as repeatable)
};

// A heading in help's list: a row with neither name nor variable.
Option section(const char* title);

// ---- Parsers, each bound to its target ----------------------------------------

Parser text(std::string* target);
Parser text(std::optional<std::string>* target);
// Each occurrence appends (a repeatable row).
Parser append(std::vector<std::string>* target);
// A switch: true from argv; from the environment, whether the text is 1, true, yes or on.
Parser flag(bool* target);
bool truthy(const std::string& text);

// A whole number from lo to hi; the refusal says "a non-negative integer" when the
// range is all of them from 0, else "an integer from LO to HI".
std::string parse_integer(const std::string& text, int64_t lo, int64_t hi, int64_t* out);

// The target is an integer, or an optional one (set only when given).
template <class T>
struct NumberOf {
  using type = T;
};
template <class T>
struct NumberOf<std::optional<T>> {
  using type = T;
};

// The largest value a target holds, within int64_t.
template <class T>
constexpr int64_t largest() {
  using N = typename NumberOf<T>::type;
  if constexpr (sizeof(N) >= sizeof(int64_t)) return std::numeric_limits<int64_t>::max();
  else return int64_t(std::numeric_limits<N>::max());
}

template <class T>
Parser number(T* target, int64_t lo = 0, int64_t hi = largest<T>()) {
  return [=](const std::string& text) -> std::string {
    int64_t n = 0;
    std::string refused = parse_integer(text, lo, hi, &n);
    if (refused.empty()) *target = typename NumberOf<T>::type(n);
    return refused;
  };
}

// ---- Reading ------------------------------------------------------------------

struct Rules {
  bool positional = false;          // bare words are kept in Parsed::positional, not refused
  bool stop_at_positional = false;  // stop at the first bare word (a command follows): Parsed::next
  bool help = true;                 // --help or -h anywhere from `first` answers kHelp
  bool version = false;             // --version or -V anywhere answers kVersion
};

struct Parsed {
  enum class Outcome { kRun, kHelp, kVersion, kError };
  Outcome outcome = Outcome::kRun;
  std::string error = {};               // kError: the refusal, without the program's name
  std::vector<std::string> positional = {};  // with Rules::positional
  int next = 0;                         // the index where reading stopped (argc when it did not)
  std::set<std::string> given = {};     // the long names argv gave

  bool ok() const { return outcome == Outcome::kRun; }
};

// Reads argv[first..argc) against the table: `--name VALUE`, `--name=VALUE`,
// `-x VALUE`, `-xVALUE`, and switches bare. Refuses an unknown option, a missing
// value, a value for a switch, a value the row's parser refuses, a second use of
// a row that is not repeatable, and a required row not given.
Parsed parse(std::span<const Option> table, int argc, char* const* argv, int first, const Rules& rules = {});

// Each row argv did not give (parsed.given) and whose variable (or its alias) is
// set, parsed from the variable; "" or the refusal, naming the variable.
std::string apply_environment(std::span<const Option> table, const Parsed& parsed);

// The list --help prints: a line per visible row, "--name VALUE" (or the variable
// of an environment-only row), then the help, [env: …] and [default: …], wrapped.
std::string help(std::span<const Option> table);

}  // namespace buzz::options
