// The lexer of the workflow condition language (docs/reference/workflows.md §7.2): the
// evalexpr 11 token rules, plus single-quoted strings (a Buzz decision).
// Identifiers are maximal runs of anything but whitespace, quotes and the
// operator characters, then read as a boolean, integer or float when they
// spell one. Pure; the caller bounds the input's length.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/result.h"

namespace buzz::engine {

enum class TokenType : uint8_t {
  kIdentifier,
  kString,
  kInt,
  kFloat,
  kBool,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
  kHat,
  kLParen,
  kRParen,
  kComma,
  kEq,     // ==
  kNotEq,  // !=
  kLt,
  kGt,
  kLtEq,
  kGtEq,
  kAnd,  // &&
  kOr,   // ||
  kNot,  // !
  kAssign,     // = += -= *= /= %= ^= &&= ||=: refused by the parser
  kSemicolon,  // ;: refused by the parser
};

struct Token {
  TokenType type;
  std::string text;  // identifiers and strings (unescaped)
  int64_t int_value = 0;
  double float_value = 0;
  bool bool_value = false;
};

Result<std::vector<Token>> lex_condition(std::string_view text);

}  // namespace buzz::engine
