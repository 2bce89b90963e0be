// Command-line plumbing shared by the `buzz` subcommands: their options, rows of
// the tools' option table (engine/options.h) from which parse_args reads argv
// and usage_text writes the list --help prints, and the exit codes (0 ok,
// 1 failure, 2 usage or configuration error — nothing was started).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/data_format.h"
#include "engine/options.h"

namespace buzz::server {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

struct ParsedArgs {
  std::map<std::string, std::string> options;  // without the leading dashes; argv, then the rows' variables
  std::set<std::string> given;                 // the options argv gave
  std::vector<std::string> positional;
  std::string error;                           // set if the command line is malformed

  bool has(const std::string& k) const { return options.count(k) > 0; }
  std::optional<std::string> get(const std::string& k) const;
};

// A subcommand's options: rows without parsers (parse_args supplies them). A row
// without a value placeholder is a switch (--json); a row with a variable (.env)
// is read from it when argv did not give the option.
using OptionRows = std::span<const options::Option>;

// Reads argv[first..) against the rows, keeping bare words in positional;
// --help or -h anywhere sets "help". Any other option is refused (error), in the
// option table's words; given twice, an option keeps the last value.
ParsedArgs parse_args(int argc, char** argv, int first, OptionRows rows);

// What --help prints: `head` (the synopsis and what the command does), then
// "Options:" and the rows' list (engine/options.h help()), then `tail`.
std::string usage_text(std::string_view head, OptionRows rows, std::string_view tail = "");

// "buzz <command>: <why>", a blank line and the command's usage, on stderr; returns kExitUsage.
int usage_error(const char* command, std::string_view usage, const std::string& why);

// For a command of subcommands, the exit when there is none to run: a bad option
// (usage_error), --help (the usage on stdout, 0), no subcommand (the usage on stderr,
// kExitUsage); nullopt when args name one.
std::optional<int> without_subcommand(const char* command, const std::string& usage, const ParsedArgs& args);

int run_serve(int argc, char** argv);
int run_admin(int argc, char** argv);
int run_audit(int argc, char** argv);
int run_reindex(int argc, char** argv);
int run_sync(int argc, char** argv);
int run_migrate(int argc, char** argv);
int run_backup(int argc, char** argv);
int run_restore(int argc, char** argv);
// `read_format` reads a data directory's format for --data-dir: the full
// binary passes engine::read_data_format; the front passes null, which leaves
// --data-dir to the full binary (nullopt), as reading it opens the store.
using DataFormatReader = engine::Result<engine::DataFormat> (*)(const std::string& db_path);
std::optional<int> run_version(int argc, char** argv, DataFormatReader read_format);

}  // namespace buzz::server
