// `buzz version`: the binary's version; with --json also the data format it
// reads and writes (engine/data_format.h), and with --data-dir the format a
// data directory is in, read without its lock (a relay may be serving it).
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "engine/data_format.h"
#include "engine/json_text.h"
#include "server/app/cli.h"

namespace buzz::server {
namespace {

constexpr const char* kVersionHead = R"(Usage: buzz version [--json] [--data-dir DIR]

Prints the version. With --json, one JSON object: the version, the data format
this binary reads and writes, and with --data-dir the format DIR is in (a
directory of an older format is upgraded when a relay opens it; a newer one is
refused).
)";

const options::Option kVersionOptions[] = {
    {.name = "json", .help = "one JSON object instead of the version line"},
    {.name = "data-dir", .value = "DIR", .help = "also the data format of this data directory (with --json)"},
};

}  // namespace

std::optional<int> run_version(int argc, char** argv, DataFormatReader read_format) {
  ParsedArgs args = parse_args(argc, argv, 2, kVersionOptions);
  const std::string usage = usage_text(kVersionHead, kVersionOptions);
  if (args.has("help")) return std::fputs(usage.c_str(), stdout), kExitOk;
  if (!args.error.empty() || !args.positional.empty()) {
    return usage_error("version", usage, args.error.empty() ? "unexpected argument" : args.error);
  }
  if (!args.has("json")) {
    std::printf("buzz %s\n", BUZZ_VERSION);
    return kExitOk;
  }
  std::vector<std::pair<std::string, std::string>> fields{{"version", json_string(BUZZ_VERSION)},
                                                          {"data_format", std::to_string(engine::kDataFormatVersion)}};
  if (auto dir = args.get("data-dir")) {
    if (!read_format) return std::nullopt;
    std::error_code ec;
    if (!std::filesystem::is_directory(*dir + "/db", ec)) {
      return std::fprintf(stderr, "buzz version: %s holds no data directory (no db/)\n", dir->c_str()), kExitFailure;
    }
    auto format = read_format(*dir + "/db");
    if (!format) return std::fprintf(stderr, "buzz version: %s\n", format.error().c_str()), kExitFailure;
    fields.push_back({"data_dir", json_object({{"path", json_string(*dir)},
                                               {"data_format", std::to_string(format->version)},
                                               {"written_by", json_string_or_null(format->written_by)}})});
  }
  std::printf("%s\n", json_object(fields).c_str());
  return kExitOk;
}

}  // namespace buzz::server
