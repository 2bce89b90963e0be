// `buzz acp`; see acp_main.h.
#include "tools/acp/acp_main.h"

#include <cstdio>
#include <string>

#include "tools/acp/acp_config.h"
#include "tools/acp/acp_models.h"
#include "tools/acp/harness.h"

namespace buzz::acp {

int run_acp(int argc, char** argv) {
  if (argc > 2 && std::string(argv[2]) == "models") return run_acp_models(argc, argv);
  std::string error;
  bool help = false, usage_error = false;
  std::optional<Config> config = parse_config(argc, argv, 2, &error, &help, &usage_error);
  if (help) {
    std::fputs(acp_help().c_str(), stdout);
    return 0;
  }
  if (!config) {
    std::fprintf(stderr, "buzz acp: %s%s\n", error.c_str(), usage_error ? " (see buzz acp --help)" : "");
    return usage_error ? options::kExitUsage : 1;
  }
  return run_harness(std::move(*config));
}

}  // namespace buzz::acp
