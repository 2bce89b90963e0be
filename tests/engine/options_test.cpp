// The option table (engine/options.h): argv against rows, the environment for the
// rows argv left unset, the refusals in clap's words, and the help it writes.
#include "engine/options.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace buzz::options {
namespace {

// A small tool's settings and its rows.
struct ToolSettings {
  std::string url = "ws://localhost:3000";
  std::optional<std::string> name;
  int count = 1;
  std::optional<uint64_t> limit;
  bool quiet = false;
  std::vector<std::string> tags;
  int64_t buffer = 0;
};

std::vector<Option> tool_rows(ToolSettings& s) {
  return {
      section("Connection:"),
      {.name = "url", .short_name = 'u', .env = "OPTIONS_TEST_URL", .value = "URL", .default_text = "ws://localhost:3000",
       .help = "where to connect", .parse = text(&s.url)},
      {.name = "name", .value = "NAME", .help = "who we are", .parse = text(&s.name), .required = true},
      section("Work:"),
      {.name = "count", .env = "OPTIONS_TEST_COUNT", .value = "N", .help = "how many, 1..32", .parse = number(&s.count, 1, 32)},
      {.name = "limit", .value = "N", .help = "at most", .parse = number(&s.limit)},
      {.name = "quiet", .env = "OPTIONS_TEST_QUIET", .help = "say less", .parse = flag(&s.quiet)},
      {.name = "tag", .value = "TAG", .help = "a label", .parse = append(&s.tags), .repeatable = true},
      {.name = "old-count", .value = "N", .parse = number(&s.count, 1, 32), .hidden = true},
      {.env = "OPTIONS_TEST_BUFFER", .default_text = "0", .help = "an environment-only setting",
       .parse = number(&s.buffer), .env_alias = "OPTIONS_TEST_OLD_BUFFER"},
  };
}

// parse() over these words, as if they followed the program's name.
Parsed parse_words(const std::vector<Option>& rows, std::vector<std::string> words, const Rules& rules = {}) {
  words.insert(words.begin(), "tool");
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  return parse(rows, int(argv.size()), argv.data(), 1, rules);
}

void clear_test_environment() {
  for (const char* v : {"OPTIONS_TEST_URL", "OPTIONS_TEST_COUNT", "OPTIONS_TEST_QUIET", "OPTIONS_TEST_BUFFER",
                        "OPTIONS_TEST_OLD_BUFFER"}) {
    unsetenv(v);
  }
}

TEST(OptionTable, ReadsEveryFormOfAValue) {
  ToolSettings s;
  const std::vector<Option> rows = tool_rows(s);
  const Parsed p = parse_words(rows, {"--name", "ann", "--count=7", "-u", "ws://a", "--quiet", "--tag", "x", "--tag=y",
                                      "--limit", "0"});
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(s.name, "ann");
  EXPECT_EQ(s.count, 7);
  EXPECT_EQ(s.url, "ws://a");
  EXPECT_TRUE(s.quiet);
  EXPECT_EQ(s.tags, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(s.limit, 0u);
  EXPECT_EQ(p.given, (std::set<std::string>{"name", "count", "url", "quiet", "tag", "limit"}));
  EXPECT_EQ(p.next, 12);

  ToolSettings attached;
  const std::vector<Option> more = tool_rows(attached);
  ASSERT_TRUE(parse_words(more, {"--name", "-", "-uws://b"}).ok());
  EXPECT_EQ(attached.url, "ws://b");
  EXPECT_EQ(attached.name, "-") << "a value may look like an option's dash";
}

TEST(OptionTable, RefusesInClapsWords) {
  ToolSettings s;
  const std::vector<Option> rows = tool_rows(s);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--name", "a", "--bogus"}, "unexpected argument '--bogus' found"},
      {{"--name", "a", "--bogus=1"}, "unexpected argument '--bogus' found"},
      {{"--name", "a", "-x"}, "unexpected argument '-x' found"},
      {{"--name", "a", "stray"}, "unexpected argument 'stray' found"},
      {{"--name"}, "a value is required for '--name NAME' but none was supplied"},
      {{"--name", "a", "--quiet=no"}, "unexpected value 'no' for '--quiet' found"},
      {{"--name", "a", "--name", "b"}, "the argument '--name' cannot be used multiple times"},
      {{"--count", "2"}, "the following required arguments were not provided:\n  --name NAME"},
      {{"--name", "a", "--count", "ten"}, "invalid value 'ten' for '--count': expected an integer from 1 to 32"},
      {{"--name", "a", "--count", "33"}, "invalid value '33' for '--count': expected an integer from 1 to 32"},
      {{"--name", "a", "--limit", "-1"}, "invalid value '-1' for '--limit': expected a non-negative integer"},
      {{"--name", "a", "--limit", "5x"}, "invalid value '5x' for '--limit': expected a non-negative integer"},
  };
  for (const auto& [words, message] : cases) {
    SCOPED_TRACE(words.back());
    const Parsed p = parse_words(rows, words);
    EXPECT_EQ(p.outcome, Parsed::Outcome::kError);
    EXPECT_EQ(p.error, message);
  }
}

// A setting given twice where the last one stands (buzz serve's keys, as in a
// configuration file): parsed both times, not refused, not listed as repeatable.
TEST(OptionTable, ALastWinsRowTakesItsLastValueAndHelpDoesNotCallItRepeatable) {
  std::string level = "info";
  const std::vector<Option> rows = {
      {.name = "log-level", .value = "LEVEL", .help = "how much", .parse = text(&level), .last_wins = true}};
  const Parsed p = parse_words(rows, {"--log-level", "debug", "--log-level=warn"});
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(level, "warn");
  EXPECT_EQ(help(rows), "  --log-level LEVEL  how much\n");
}

TEST(OptionTable, ANumbersTargetBoundsItsRange) {
  int small = 0;
  const std::vector<Option> rows = {{.name = "n", .value = "N", .parse = number(&small)}};
  EXPECT_EQ(parse_words(rows, {"--n", "3000000000"}).error,
            "invalid value '3000000000' for '--n': expected an integer from 0 to 2147483647");
  ASSERT_TRUE(parse_words(rows, {"--n", "2147483647"}).ok());
  EXPECT_EQ(small, 2147483647);
}

TEST(OptionTable, HelpAndVersionWinOverEverythingElse) {
  ToolSettings s;
  const std::vector<Option> rows = tool_rows(s);
  EXPECT_EQ(parse_words(rows, {"--bogus", "-h"}).outcome, Parsed::Outcome::kHelp);
  EXPECT_EQ(parse_words(rows, {"--help"}).outcome, Parsed::Outcome::kHelp) << "before the missing --name";
  EXPECT_EQ(parse_words(rows, {"--version"}).outcome, Parsed::Outcome::kError) << "not asked for";
  EXPECT_EQ(parse_words(rows, {"--version"}, {.version = true}).outcome, Parsed::Outcome::kVersion);
  EXPECT_EQ(parse_words(rows, {"--help"}, {.help = false}).error, "unexpected argument '--help' found");
}

TEST(OptionTable, PositionalWordsAndAStopBeforeACommand) {
  ToolSettings s;
  const std::vector<Option> rows = tool_rows(s);
  Parsed p = parse_words(rows, {"one", "--name", "a", "two"}, {.positional = true});
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.positional, (std::vector<std::string>{"one", "two"}));

  ToolSettings t;
  const std::vector<Option> globals = tool_rows(t);
  p = parse_words(globals, {"--url", "ws://c", "send", "--bogus"}, {.stop_at_positional = true});
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.next, 3) << "argv[3] is the command";
  EXPECT_EQ(t.url, "ws://c");
}

TEST(OptionTable, TheEnvironmentFillsWhatArgvLeftUnset) {
  clear_test_environment();
  setenv("OPTIONS_TEST_URL", "ws://env", 1);
  setenv("OPTIONS_TEST_COUNT", "5", 1);
  setenv("OPTIONS_TEST_QUIET", "yes", 1);
  setenv("OPTIONS_TEST_OLD_BUFFER", "64", 1);
  ToolSettings s;
  const std::vector<Option> rows = tool_rows(s);
  Parsed p = parse_words(rows, {"--name", "a", "--count", "3"});
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(apply_environment(rows, p), "");
  EXPECT_EQ(s.count, 3) << "the flag wins";
  EXPECT_EQ(s.url, "ws://env");
  EXPECT_TRUE(s.quiet) << "a switch's variable counts when truthy";
  EXPECT_EQ(s.buffer, 64) << "the older name, as the current one is unset";

  setenv("OPTIONS_TEST_BUFFER", "128", 1);
  setenv("OPTIONS_TEST_QUIET", "0", 1);
  ToolSettings t;
  const std::vector<Option> again = tool_rows(t);
  p = parse_words(again, {"--name", "a"});
  EXPECT_EQ(apply_environment(again, p), "");
  EXPECT_EQ(t.buffer, 128) << "the current name wins over the older";
  EXPECT_FALSE(t.quiet);
  EXPECT_EQ(t.count, 5);

  setenv("OPTIONS_TEST_COUNT", "lots", 1);
  ToolSettings u;
  const std::vector<Option> bad = tool_rows(u);
  p = parse_words(bad, {"--name", "a"});
  EXPECT_EQ(apply_environment(bad, p), "invalid value 'lots' for OPTIONS_TEST_COUNT: expected an integer from 1 to 32");
  p = parse_words(bad, {"--name", "a", "--count", "2"});
  EXPECT_EQ(apply_environment(bad, p), "") << "a bad variable the flag overrides is never read";
  clear_test_environment();
}

TEST(OptionTable, HelpListsTheVisibleRowsUnderTheirSections) {
  ToolSettings s;
  const std::string text = help(tool_rows(s));
  EXPECT_EQ(text,
            "Connection:\n"
            "  -u, --url URL        where to connect [env: OPTIONS_TEST_URL] [default: ws://localhost:3000]\n"
            "  --name NAME          who we are (required)\n"
            "\n"
            "Work:\n"
            "  --count N            how many, 1..32 [env: OPTIONS_TEST_COUNT]\n"
            "  --limit N            at most\n"
            "  --quiet              say less [env: OPTIONS_TEST_QUIET]\n"
            "  --tag TAG            a label (repeatable)\n"
            "  OPTIONS_TEST_BUFFER  an environment-only setting [default: 0]\n");
}

TEST(OptionTable, HelpWrapsLongTextUnderItsColumn) {
  bool on = false;
  const std::string words = std::string(60, 'w') + " " + std::string(30, 'z');
  const std::vector<Option> rows = {
      {.name = "a-rather-long-option-name", .value = "VALUE", .help = "goes below", .parse = flag(&on)},
      {.name = "x", .help = words.c_str(), .parse = flag(&on)},
  };
  const std::string column(32, ' ');
  EXPECT_EQ(help(rows), "  --a-rather-long-option-name VALUE\n" + column + "goes below\n" +
                            "  --x" + std::string(27, ' ') + std::string(60, 'w') + "\n" + column + std::string(30, 'z') + "\n");
}

}  // namespace
}  // namespace buzz::options
