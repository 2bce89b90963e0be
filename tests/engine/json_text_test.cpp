// engine/json_text.h: the writers every hand-built body goes through. What a
// reader relies on: strings come out escaped, json_object sorts its keys,
// JsonFields keeps the order it was given.
#include "engine/json_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace buzz {
namespace {

TEST(JsonText, StringsAreEscaped) {
  EXPECT_EQ(json_string("a\"b\\c\n"), R"("a\"b\\c\n")");
  EXPECT_EQ(json_string_or_null(""), "null");
  EXPECT_EQ(json_string_array(std::vector<std::string>{"x", "\""}), R"(["x","\""])");
}

TEST(JsonText, ObjectKeysAreSorted) {
  EXPECT_EQ(json_object({{"b", "1"}, {"a", json_string("x")}}), R"({"a":"x","b":1})");
  EXPECT_EQ(json_object({}), "{}");
}

TEST(JsonFields, KeepTheOrderGivenAndEscape) {
  const std::string out = JsonFields()
                              .number("seq", uint64_t{18446744073709551615u})
                              .string("from", "ws://h/\"x\\")
                              .number("delta", -3)
                              .boolean("ok", false)
                              .string_or_null("note", "")
                              .json("meta", R"({"k":[]})")
                              .str();
  EXPECT_EQ(out,
            R"({"seq":18446744073709551615,"from":"ws://h/\"x\\","delta":-3,"ok":false,"note":null,"meta":{"k":[]}})");
  EXPECT_EQ(JsonFields().nullable("a", std::nullopt).nullable("b", "x").nullable("c", "").str(),
            R"({"a":null,"b":"x","c":""})");
  EXPECT_EQ(JsonFields().str(), "{}");
  EXPECT_EQ(JsonFields().string("k\"", "v").str(), R"({"k\"":"v"})");
}

TEST(JsonFields, DecimalsHaveTheirPlacesAndNoNaN) {
  EXPECT_EQ(JsonFields().decimal("s", 1.23456, 3).decimal("r", 2, 1).str(), R"({"s":1.235,"r":2.0})");
  EXPECT_EQ(JsonFields().decimal("s", std::nan(""), 3).decimal("i", std::numeric_limits<double>::infinity(), 3).str(),
            R"({"s":null,"i":null})");
}

}  // namespace
}  // namespace buzz
