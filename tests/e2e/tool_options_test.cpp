// Every tool reads its command line through one option table (engine/options.h):
// `--help` lists its flags (and their variables) on stdout with exit 0, and an
// unknown flag is refused in clap's words with exit 2. The agent commands keep
// the reference's error line and exit 1 for every user_error
// (docs/reference/agents-and-cli.md §B.1). The real binaries, no relay needed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/e2e/cli_process.h"

namespace buzz::test {
namespace {

struct ToolCase {
  std::vector<std::string> command;  // after the binary
  std::vector<std::string> listed;   // what its --help must show
  std::string refusal;               // stderr for `--bogus`
};

bool shows(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

void expect_help_and_refusal(const std::string& binary, const ToolCase& c) {
  std::vector<std::string> args = {binary};
  args.insert(args.end(), c.command.begin(), c.command.end());
  args.push_back("--help");
  const CliRun help = run_program(args);
  EXPECT_EQ(help.status, 0) << help.err;
  EXPECT_EQ(help.err, "");
  for (const std::string& what : c.listed) EXPECT_TRUE(shows(help.out, what)) << what << " missing from:\n" << help.out;

  args.back() = "--bogus";
  const CliRun bad = run_program(args);
  EXPECT_EQ(bad.status, 2) << bad.err;
  EXPECT_EQ(bad.out, "");
  EXPECT_EQ(bad.err, c.refusal);
}

TEST(ToolOptions, EachToolListsItsFlagsAndRefusesAnUnknownOneWithExit2) {
  const std::string buzz = std::getenv("BUZZ_BINARY");
  const std::vector<ToolCase> cases = {
      {{"acp"},
       {"--relay-url URL", "[env: BUZZ_RELAY_URL]", "--agents N", "[env: BUZZ_ACP_AGENTS]", "--no-typing",
        "BUZZ_ACP_EVENT_BUFFER", "What reaches the agents:"},
       "buzz acp: unexpected argument '--bogus' found (see buzz acp --help)\n"},
      {{"acp", "models"},
       {"--agent-command CMD", "[env: BUZZ_ACP_AGENT_COMMAND]", "--agent-args A,B", "--json"},
       "error: unexpected argument '--bogus' found (see buzz acp models --help)\n"},
      {{"mcp"},
       {"--relay <URL>", "[env: BUZZ_RELAY_URL]", "--token <TOKEN>", "--private-key <KEY>", "[env: BUZZ_PUBKEY]"},
       "buzz mcp: unexpected argument '--bogus' found (see buzz mcp --help)\n"},
      {{"proxy"},
       {"BUZZ_UPSTREAM_URL", "BUZZ_PROXY_SALT", "BUZZ_PROXY_BIND_ADDR", "[default: 0.0.0.0:4869]"},
       "buzz proxy: unexpected argument '--bogus' found (configuration is in the environment; see --help)\n"},
  };
  for (const ToolCase& c : cases) {
    SCOPED_TRACE(c.command.back());
    expect_help_and_refusal(buzz, c);
  }
}

// buzz-load beside the buzz under test (both at the build directory's top).
std::string buzz_load_binary() { return (std::filesystem::path(std::getenv("BUZZ_BINARY")).parent_path() / "buzz-load").string(); }

TEST(ToolOptions, BuzzLoadListsItsFlagsAndRefusesAnUnknownOneWithExit2) {
  expect_help_and_refusal(buzz_load_binary(),
                          {{"ingest"},
                           {"--connections N", "--binary PATH", "[default: ./build/buzz]", "--speakers N", "--json"},
                           "buzz-load: unexpected argument '--bogus' found (buzz-load --help lists the options)\n"});
  const CliRun count = run_program({buzz_load_binary(), "ingest", "--events", "ten"});
  EXPECT_EQ(count.status, 2);
  EXPECT_EQ(count.err, "buzz-load: invalid value 'ten' for '--events': expected an integer from 0 to 2147483647 "
                       "(buzz-load --help lists the options)\n");
}

// The relay's own subcommands declare their options as rows of the same table (server/app/cli.h),
// each with its placeholder, which the refusal shows.
TEST(ToolOptions, ServerSubcommandsRefuseAnUnknownOptionWithExit2) {
  for (const char* command : {"serve", "admin", "audit", "reindex", "sync", "migrate", "backup", "restore", "version"}) {
    SCOPED_TRACE(command);
    const CliRun bad = run_cli({command, "--bogus", "x"});
    EXPECT_EQ(bad.status, 2);
    EXPECT_EQ(bad.out, "");
    EXPECT_TRUE(shows(bad.err, "unexpected argument '--bogus' found")) << bad.err;
  }
  const CliRun missing = run_cli({"backup", "--to"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_TRUE(shows(missing.err, "a value is required for '--to DIR' but none was supplied")) << missing.err;
}

// The agent commands: the same table, the reference's error line and exit code.
TEST(ToolOptions, AgentCommandsListTheirFlagsAndRefuseAnUnknownOneAsAUserError) {
  const CliRun help = run_cli({"send-message", "--help"});
  EXPECT_EQ(help.status, 0);
  for (const char* what : {"--channel <CHANNEL>", "--mention <MENTION>", "(repeatable)", "--relay <URL>",
                           "[env: BUZZ_API_TOKEN]"}) {
    EXPECT_TRUE(shows(help.out, what)) << what << " missing from:\n" << help.out;
  }
  const CliRun bad = run_cli({"send-message", "--bogus"});
  EXPECT_EQ(bad.status, 1);
  EXPECT_EQ(bad.err, "{\"error\":\"user_error\",\"message\":\"unexpected argument '--bogus' found\"}\n");
  const CliRun missing = run_cli({"--token"});
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.err,
            "{\"error\":\"user_error\",\"message\":\"a value is required for '--token <TOKEN>' but none was supplied\"}\n");
}

}  // namespace
}  // namespace buzz::test
