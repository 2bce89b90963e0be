// The parser of the workflow condition language (docs/reference/workflows.md §7.3): tokens
// into a tree, by precedence climbing over evalexpr 11's operator table.
// Assignment and `;` chaining are refused here, so a parsed tree can only read
// its variables. Nesting is bounded (kMaxConditionDepth) so hostile input
// cannot exhaust the stack.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/condition_lexer.h"
#include "engine/result.h"

namespace buzz::engine {

inline constexpr size_t kMaxConditionBytes = 4096;
inline constexpr int kMaxConditionDepth = 64;

struct ConditionNode {
  enum class Kind : uint8_t { kLiteral, kVariable, kUnary, kBinary, kTuple, kCall };
  Kind kind;
  Token token;  // the literal, the variable or function name, or the operator
  std::vector<ConditionNode> children;
};

// Lexes and parses; the error is the detail the caller wraps
// ("condition evaluation error: '<expr>': <detail>").
Result<ConditionNode> parse_condition(std::string_view text);

}  // namespace buzz::engine
