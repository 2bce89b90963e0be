// COPY text format both ways (migrate/pg_connection.h): what the exporter
// writes, split back field by field as the importer reads it.
#include <gtest/gtest.h>

#include "migrate/pg_connection.h"

namespace buzz::migrate {
namespace {

TEST(CopyText, SplitReadsBackWhatAppendWrote) {
  const std::vector<std::string> values = {"plain", "", "tab\there", "line\nbreak\r", "back\\slash\\", "\\N", "ünï 🐝",
                                           std::string(5000, 'x') + "\\end"};
  std::string line;
  for (const std::string& v : values) {
    if (!line.empty()) line.push_back('\t');
    copy_text::append_text(line, v);
  }
  line.push_back('\t');
  copy_text::append_null(line);
  std::vector<std::string> fields;
  std::vector<bool> nulls;
  ASSERT_TRUE(copy_text::split(line, fields, nulls));
  ASSERT_EQ(fields.size(), values.size() + 1);
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(fields[i], values[i]) << i;
    EXPECT_FALSE(nulls[i]) << i;
  }
  EXPECT_TRUE(nulls.back());
  EXPECT_EQ(fields.back(), "");

  // The same vectors again, for a shorter line: nothing of the last one stays.
  ASSERT_TRUE(copy_text::split("a\t\\N", fields, nulls));
  EXPECT_EQ(fields, (std::vector<std::string>{"a", ""}));
  EXPECT_EQ(nulls, (std::vector<bool>{false, true}));
}

TEST(CopyText, SplitDecodesEveryEscapePostgresWrites) {
  std::vector<std::string> fields;
  std::vector<bool> nulls;
  ASSERT_TRUE(copy_text::split("\\b\\f\\v\\x41\\x4a2\\101\\0\\q", fields, nulls));
  ASSERT_EQ(fields.size(), 1u);
  EXPECT_EQ(fields[0], std::string("\b\f\vAJ2A\0q", 9));
  ASSERT_TRUE(copy_text::split("", fields, nulls));
  EXPECT_EQ(fields, std::vector<std::string>{""});
  EXPECT_FALSE(copy_text::split("dangling\\", fields, nulls));
  EXPECT_FALSE(copy_text::split("\\xz", fields, nulls));
}

}  // namespace
}  // namespace buzz::migrate
