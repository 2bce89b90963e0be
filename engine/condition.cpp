// Evaluating condition trees; see condition.h. Every node visit counts
// toward the budget, whose clock is read every kClockEvery visits.
#include "engine/condition.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace buzz::engine {
namespace {

using Value = ConditionValue;
using Type = ConditionValue::Type;

constexpr size_t kClockEvery = 256;
constexpr size_t kMaxStringBytes = 1 << 20;  // a concatenation may not grow past this

std::string_view type_name(Type t) {
  switch (t) {
    case Type::kString: return "string";
    case Type::kInt: return "int";
    case Type::kFloat: return "float";
    case Type::kBool: return "boolean";
    case Type::kEmpty: return "empty";
    case Type::kTuple: return "tuple";
  }
  return "?";
}

bool is_number(const Value& v) { return v.type == Type::kInt || v.type == Type::kFloat; }
double as_float(const Value& v) { return v.type == Type::kInt ? double(v.i) : v.f; }

bool equal(const Value& a, const Value& b) {
  if (a.type != b.type) return false;
  switch (a.type) {
    case Type::kString: return a.s == b.s;
    case Type::kInt: return a.i == b.i;
    case Type::kFloat: return a.f == b.f;
    case Type::kBool: return a.b == b.b;
    case Type::kEmpty: return true;
    case Type::kTuple:
      return a.tuple.size() == b.tuple.size() && std::equal(a.tuple.begin(), a.tuple.end(), b.tuple.begin(), equal);
  }
  return false;
}

class Evaluator {
 public:
  Evaluator(const ConditionVariables& vars, std::chrono::milliseconds budget)
      : vars_(vars), deadline_(std::chrono::steady_clock::now() + budget), budget_(budget) {}

  Result<Value> eval(const ConditionNode& n) {
    if (++visits_ % kClockEvery == 0 && std::chrono::steady_clock::now() > deadline_) {
      return Error{"evaluation timed out after " + std::to_string(budget_.count()) + "ms"};
    }
    switch (n.kind) {
      case ConditionNode::Kind::kLiteral: return literal(n.token);
      case ConditionNode::Kind::kVariable: {
        auto it = vars_.find(n.token.text);
        if (it == vars_.end()) return Error{"variable identifier is not bound to anything by context: \"" + n.token.text + "\""};
        return it->second;
      }
      case ConditionNode::Kind::kTuple: {
        Value t = Value::of(Type::kTuple);
        for (const ConditionNode& c : n.children) {
          auto v = eval(c);
          if (!v) return v;
          t.tuple.push_back(std::move(*v));
        }
        return t;
      }
      case ConditionNode::Kind::kUnary: return unary(n);
      case ConditionNode::Kind::kBinary: return binary(n);
      case ConditionNode::Kind::kCall: return call(n);
    }
    return Error{"unknown node"};
  }

 private:
  static Value literal(const Token& t) {
    switch (t.type) {
      case TokenType::kString: return Value::string(t.text);
      case TokenType::kInt: return Value::integer(t.int_value);
      case TokenType::kFloat: return Value::real(t.float_value);
      default: return Value::boolean(t.bool_value);
    }
  }

  Result<Value> unary(const ConditionNode& n) {
    auto v = eval(n.children[0]);
    if (!v) return v;
    if (n.token.type == TokenType::kNot) {
      if (v->type != Type::kBool) return Error{"expected boolean, got " + std::string(type_name(v->type))};
      return Value::boolean(!v->b);
    }
    if (v->type == Type::kInt) {
      if (v->i == std::numeric_limits<int64_t>::min()) return Error{"integer overflow in negation"};
      return Value::integer(-v->i);
    }
    if (v->type == Type::kFloat) return Value::real(-v->f);
    return Error{"expected number, got " + std::string(type_name(v->type))};
  }

  Result<Value> binary(const ConditionNode& n) {
    // Both sides are always evaluated: && and || do not short-circuit (evalexpr 11).
    auto l = eval(n.children[0]);
    if (!l) return l;
    auto r = eval(n.children[1]);
    if (!r) return r;
    const Value &a = *l, &b = *r;
    const TokenType op = n.token.type;
    auto mismatch = [&](std::string_view what) {
      return Error{"cannot apply " + std::string(what) + " to " + std::string(type_name(a.type)) + " and " +
                   std::string(type_name(b.type))};
    };
    switch (op) {
      case TokenType::kAnd: case TokenType::kOr:
        if (a.type != Type::kBool || b.type != Type::kBool) return mismatch(op == TokenType::kAnd ? "&&" : "||");
        return Value::boolean(op == TokenType::kAnd ? a.b && b.b : a.b || b.b);
      case TokenType::kEq: return Value::boolean(equal(a, b));
      case TokenType::kNotEq: return Value::boolean(!equal(a, b));
      case TokenType::kLt: case TokenType::kGt: case TokenType::kLtEq: case TokenType::kGtEq: {
        int cmp;
        if (a.type == Type::kString && b.type == Type::kString) {
          cmp = a.s.compare(b.s);
        } else if (a.type == Type::kInt && b.type == Type::kInt) {
          cmp = a.i < b.i ? -1 : a.i > b.i;
        } else if (is_number(a) && is_number(b)) {
          const double x = as_float(a), y = as_float(b);
          if (std::isnan(x) || std::isnan(y)) return Value::boolean(false);
          cmp = x < y ? -1 : x > y;
        } else {
          return mismatch("comparison");
        }
        if (op == TokenType::kLt) return Value::boolean(cmp < 0);
        if (op == TokenType::kGt) return Value::boolean(cmp > 0);
        if (op == TokenType::kLtEq) return Value::boolean(cmp <= 0);
        return Value::boolean(cmp >= 0);
      }
      case TokenType::kPlus:
        if (a.type == Type::kString && b.type == Type::kString) {
          if (a.s.size() + b.s.size() > kMaxStringBytes) return Error{"string result exceeds 1 MiB"};
          return Value::string(a.s + b.s);
        }
        [[fallthrough]];
      case TokenType::kMinus: case TokenType::kStar: case TokenType::kSlash: case TokenType::kPercent:
        return arithmetic(op, a, b, mismatch);
      case TokenType::kHat:
        if (!is_number(a) || !is_number(b)) return mismatch("^");
        return Value::real(std::pow(as_float(a), as_float(b)));
      default: return Error{"unsupported operator"};
    }
  }

  template <class Mismatch>
  static Result<Value> arithmetic(TokenType op, const Value& a, const Value& b, Mismatch mismatch) {
    const char* name = op == TokenType::kPlus ? "+" : op == TokenType::kMinus ? "-" : op == TokenType::kStar ? "*"
                       : op == TokenType::kSlash ? "/" : "%";
    if (!is_number(a) || !is_number(b)) return mismatch(name);
    if (a.type == Type::kInt && b.type == Type::kInt) {
      int64_t out = 0;
      bool overflow = false;
      switch (op) {
        case TokenType::kPlus: overflow = __builtin_add_overflow(a.i, b.i, &out); break;
        case TokenType::kMinus: overflow = __builtin_sub_overflow(a.i, b.i, &out); break;
        case TokenType::kStar: overflow = __builtin_mul_overflow(a.i, b.i, &out); break;
        default:
          if (b.i == 0) return Error{op == TokenType::kSlash ? "division by zero" : "modulo by zero"};
          if (a.i == std::numeric_limits<int64_t>::min() && b.i == -1) {
            overflow = true;
          } else {
            out = op == TokenType::kSlash ? a.i / b.i : a.i % b.i;
          }
      }
      if (overflow) return Error{"integer overflow in " + std::string(name)};
      return Value::integer(out);
    }
    const double x = as_float(a), y = as_float(b);
    switch (op) {
      case TokenType::kPlus: return Value::real(x + y);
      case TokenType::kMinus: return Value::real(x - y);
      case TokenType::kStar: return Value::real(x * y);
      case TokenType::kSlash: return Value::real(x / y);
      default: return Value::real(std::fmod(x, y));
    }
  }

  Result<Value> call(const ConditionNode& n) {
    auto arg = eval(n.children[0]);
    if (!arg) return arg;
    std::vector<Value> args;
    if (arg->type == Type::kTuple) {
      args = std::move(arg->tuple);
    } else {
      args.push_back(std::move(*arg));
    }
    const std::string& f = n.token.text;
    auto strings = [&](size_t count) -> Status {
      if (args.size() != count) {
        return Error{f + "() expects " + std::to_string(count) + " argument" + (count == 1 ? "" : "s") + ", got " +
                     std::to_string(args.size())};
      }
      for (const Value& v : args) {
        if (v.type != Type::kString) return Error{f + "() expects string arguments, got " + std::string(type_name(v.type))};
      }
      return {};
    };
    if (f == "str_contains" || f == "str_starts_with" || f == "str_ends_with") {
      if (auto s = strings(2); !s) return Error{s.error()};
      const std::string &s = args[0].s, &x = args[1].s;
      if (f == "str_contains") return Value::boolean(s.find(x) != std::string::npos);
      if (f == "str_starts_with") return Value::boolean(s.starts_with(x));
      return Value::boolean(s.ends_with(x));
    }
    if (f == "str_len" || f == "len") {
      if (auto s = strings(1); !s) return Error{s.error()};
      return Value::integer(int64_t(args[0].s.size()));
    }
    if (f == "str::to_lowercase" || f == "str::to_uppercase" || f == "str::trim") {
      if (auto s = strings(1); !s) return Error{s.error()};
      std::string s = args[0].s;
      if (f == "str::trim") {
        const char* ws = " \t\n\r\f\v";
        size_t b = s.find_first_not_of(ws);
        s = b == std::string::npos ? "" : s.substr(b, s.find_last_not_of(ws) - b + 1);
      } else {
        const bool up = f == "str::to_uppercase";
        for (char& c : s) {
          if (c >= 'a' && c <= 'z' && up) c = char(c - 32);
          if (c >= 'A' && c <= 'Z' && !up) c = char(c + 32);
        }
      }
      return Value::string(std::move(s));
    }
    return Error{"unknown or unsupported function: " + f};
  }

  const ConditionVariables& vars_;
  const std::chrono::steady_clock::time_point deadline_;
  const std::chrono::milliseconds budget_;
  size_t visits_ = 0;
};

std::string wrap(std::string_view expr, std::string_view detail) {
  return "condition evaluation error: '" + std::string(expr) + "': " + std::string(detail);
}

}  // namespace

Status check_condition(std::string_view expression) {
  auto tree = parse_condition(expression);
  if (!tree) return Error{tree.error()};
  return {};
}

Result<Condition> Condition::compile(std::string_view expression) {
  auto tree = parse_condition(expression);
  if (!tree) return Error{tree.error()};
  return Condition(std::string(expression), std::move(*tree));
}

Result<bool> Condition::evaluate(const ConditionVariables& variables, std::chrono::milliseconds budget) const {
  auto value = Evaluator(variables, budget).eval(tree_);
  if (!value) return Error{wrap(text_, value.error())};
  if (value->type != Type::kBool) {
    return Error{wrap(text_, "expected a boolean result, got " + std::string(type_name(value->type)))};
  }
  return value->b;
}

Result<bool> evaluate_condition(std::string_view expression, const ConditionVariables& variables,
                                std::chrono::milliseconds budget) {
  auto condition = Condition::compile(expression);
  if (!condition) return Error{wrap(expression, condition.error())};
  return condition->evaluate(variables, budget);
}

}  // namespace buzz::engine
