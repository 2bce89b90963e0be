// Precedence climbing for the condition language; see condition_parser.h.
#include "engine/condition_parser.h"

namespace buzz::engine {
namespace {

// Binding power of a binary operator; 0 = not one.
int binary_precedence(TokenType t) {
  switch (t) {
    case TokenType::kComma: return 40;
    case TokenType::kOr: return 70;
    case TokenType::kAnd: return 75;
    case TokenType::kEq: case TokenType::kNotEq: case TokenType::kLt: case TokenType::kGt:
    case TokenType::kLtEq: case TokenType::kGtEq: return 80;
    case TokenType::kPlus: case TokenType::kMinus: return 95;
    case TokenType::kStar: case TokenType::kSlash: case TokenType::kPercent: return 100;
    case TokenType::kHat: return 120;
    default: return 0;
  }
}
constexpr int kUnaryPrecedence = 110;

bool starts_operand(TokenType t) {
  return t == TokenType::kIdentifier || t == TokenType::kString || t == TokenType::kInt || t == TokenType::kFloat ||
         t == TokenType::kBool || t == TokenType::kLParen;
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  Result<ConditionNode> parse_all() {
    if (tokens_.empty()) return Error{"empty expression"};
    auto node = expression(0, 0);
    if (!node) return node;
    if (pos_ < tokens_.size()) return Error{unexpected(tokens_[pos_])};
    return node;
  }

 private:
  static std::string unexpected(const Token& t) {
    if (t.type == TokenType::kAssign) return "assignment is not allowed: context not mutable";
    if (t.type == TokenType::kSemicolon) return "';' chaining is not allowed: context not mutable";
    if (t.type == TokenType::kRParen) return "unmatched ')'";
    return "unexpected token" + (t.text.empty() ? std::string() : " '" + t.text + "'");
  }

  Result<ConditionNode> expression(int min_precedence, int depth) {
    if (depth > kMaxConditionDepth) return Error{"expression nested too deeply (limit " +
                                                 std::to_string(kMaxConditionDepth) + ")"};
    auto left = unary(depth);
    if (!left) return left;
    while (pos_ < tokens_.size()) {
      const Token& op = tokens_[pos_];
      if (op.type == TokenType::kAssign || op.type == TokenType::kSemicolon) return Error{unexpected(op)};
      const int prec = binary_precedence(op.type);
      if (prec == 0 || prec <= min_precedence) break;
      Token op_token = op;
      ++pos_;
      if (op_token.type == TokenType::kComma) {
        // A tuple: flatten a, b, c into one node.
        auto right = expression(prec, depth + 1);
        if (!right) return right;
        if (left->kind != ConditionNode::Kind::kTuple) {
          ConditionNode tuple{ConditionNode::Kind::kTuple, op_token, {}};
          tuple.children.push_back(std::move(*left));
          left = std::move(tuple);
        }
        left->children.push_back(std::move(*right));
        continue;
      }
      auto right = expression(prec, depth + 1);  // left-associative: the right side binds tighter only
      if (!right) return right;
      ConditionNode node{ConditionNode::Kind::kBinary, std::move(op_token), {}};
      node.children.push_back(std::move(*left));
      node.children.push_back(std::move(*right));
      left = std::move(node);
    }
    return left;
  }

  Result<ConditionNode> unary(int depth) {
    if (pos_ >= tokens_.size()) return Error{"unexpected end of expression"};
    const Token& t = tokens_[pos_];
    if (t.type == TokenType::kMinus || t.type == TokenType::kNot) {
      Token op = t;
      ++pos_;
      if (depth > kMaxConditionDepth) return Error{"expression nested too deeply"};
      auto operand = expression(kUnaryPrecedence, depth + 1);
      if (!operand) return operand;
      ConditionNode node{ConditionNode::Kind::kUnary, std::move(op), {}};
      node.children.push_back(std::move(*operand));
      return node;
    }
    return primary(depth);
  }

  Result<ConditionNode> primary(int depth) {
    if (pos_ >= tokens_.size()) return Error{"unexpected end of expression"};
    Token t = tokens_[pos_++];
    switch (t.type) {
      case TokenType::kString: case TokenType::kInt: case TokenType::kFloat: case TokenType::kBool:
        return ConditionNode{ConditionNode::Kind::kLiteral, std::move(t), {}};
      case TokenType::kLParen: {
        if (pos_ < tokens_.size() && tokens_[pos_].type == TokenType::kRParen) {
          ++pos_;
          return ConditionNode{ConditionNode::Kind::kTuple, std::move(t), {}};  // () is the empty tuple
        }
        auto inner = expression(0, depth + 1);
        if (!inner) return inner;
        if (pos_ >= tokens_.size() || tokens_[pos_].type != TokenType::kRParen) return Error{"unmatched '('"};
        ++pos_;
        return inner;
      }
      case TokenType::kIdentifier: {
        // An identifier followed by an operand is a function applied to it (precedence 190).
        if (pos_ < tokens_.size() && starts_operand(tokens_[pos_].type)) {
          if (depth > kMaxConditionDepth) return Error{"expression nested too deeply"};
          auto arg = primary(depth + 1);
          if (!arg) return arg;
          ConditionNode call{ConditionNode::Kind::kCall, std::move(t), {}};
          call.children.push_back(std::move(*arg));
          return call;
        }
        return ConditionNode{ConditionNode::Kind::kVariable, std::move(t), {}};
      }
      default:
        return Error{unexpected(t)};
    }
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

}  // namespace

Result<ConditionNode> parse_condition(std::string_view text) {
  if (text.size() > kMaxConditionBytes) {
    return Error{"expression is " + std::to_string(text.size()) + " bytes, more than the limit of " +
                 std::to_string(kMaxConditionBytes)};
  }
  auto tokens = lex_condition(text);
  if (!tokens) return Error{tokens.error()};
  return Parser(std::move(*tokens)).parse_all();
}

}  // namespace buzz::engine
