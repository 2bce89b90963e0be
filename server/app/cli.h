// Command-line plumbing shared by the `buzz` subcommands: their options, read
// through the tools' option table (engine/options.h), and the exit codes (0 ok,
// 1 failure, 2 usage or configuration error — nothing was started).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/data_format.h"

namespace buzz::server {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

struct ParsedArgs {
  std::map<std::string, std::string> options;  // without the leading dashes
  std::vector<std::string> positional;
  std::string error;                           // set if the command line is malformed

  bool has(const std::string& k) const { return options.count(k) > 0; }
  std::optional<std::string> get(const std::string& k) const;
};

// `switches` names the options that take no value (--json, --open), `values` those
// that take one; --help or -h anywhere sets "help". Any other option is refused
// (error), in the option table's words; given twice, an option keeps the last value.
ParsedArgs parse_args(int argc, char** argv, int first, const std::vector<std::string>& switches,
                      const std::vector<std::string>& values);

// "buzz <command>: <why>", a blank line and the command's usage, on stderr; returns kExitUsage.
int usage_error(const char* command, const char* usage, const std::string& why);

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
