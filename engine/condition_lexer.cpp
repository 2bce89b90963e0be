// Tokens of the condition language; see condition_lexer.h.
#include "engine/condition_lexer.h"

#include <cctype>
#include <charconv>
#include <cstdlib>

namespace buzz::engine {
namespace {

bool is_operator_char(char c) {
  switch (c) {
    case '+': case '-': case '*': case '/': case '%': case '^': case '(': case ')':
    case ',': case ';': case '=': case '!': case '>': case '<': case '&': case '|':
      return true;
    default:
      return false;
  }
}

bool ends_identifier(char c) { return std::isspace(uint8_t(c)) || c == '"' || c == '\'' || is_operator_char(c); }

// A decimal or 0x-hex i64; false if the text is not one.
bool parse_int(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  int base = 10;
  std::string_view digits = s;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    digits = s.substr(2);
  }
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *out, base);
  return ec == std::errc() && end == digits.data() + digits.size();
}

// A float as Rust's f64 parser takes it: digits, a point, an exponent, inf/NaN.
bool parse_float(std::string_view s, double* out) {
  if (s.empty()) return false;
  std::string lowered;
  for (char c : s) lowered.push_back(char(std::tolower(uint8_t(c))));
  if (lowered == "inf" || lowered == "infinity" || lowered == "nan") {
    *out = std::strtod(lowered.c_str(), nullptr);
    return true;
  }
  size_t i = 0;
  bool digits = false;
  while (i < s.size() && std::isdigit(uint8_t(s[i]))) ++i, digits = true;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(uint8_t(s[i]))) ++i, digits = true;
  }
  if (!digits) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp_start = i;
    while (i < s.size() && std::isdigit(uint8_t(s[i]))) ++i;
    if (i == exp_start) return false;
  }
  if (i != s.size()) return false;
  *out = std::strtod(std::string(s).c_str(), nullptr);
  return true;
}

}  // namespace

Result<std::vector<Token>> lex_condition(std::string_view text) {
  std::vector<Token> out;
  size_t i = 0;
  auto op = [&](TokenType t, size_t len) {
    out.push_back(Token{t, {}});
    i += len;
  };
  while (i < text.size()) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    const char after = i + 2 < text.size() ? text[i + 2] : '\0';
    if (std::isspace(uint8_t(c))) {
      ++i;
      continue;
    }
    if (c == '/' && next == '/') {  // comment to the end of the line
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && next == '*') {
      size_t end = text.find("*/", i + 2);
      if (end == std::string_view::npos) return Error{"unterminated block comment"};
      i = end + 2;
      continue;
    }
    if (c == '"' || c == '\'') {
      std::string value;
      size_t j = i + 1;
      bool closed = false;
      for (; j < text.size(); ++j) {
        if (text[j] == '\\') {
          if (j + 1 >= text.size()) break;
          const char e = text[j + 1];
          if (e != '\\' && e != c) return Error{std::string("illegal escape sequence \\") + e};
          value.push_back(e);
          ++j;
        } else if (text[j] == c) {
          closed = true;
          break;
        } else {
          value.push_back(text[j]);
        }
      }
      if (!closed) return Error{"unmatched quote in string literal"};
      out.push_back(Token{TokenType::kString, std::move(value)});
      i = j + 1;
      continue;
    }
    switch (c) {
      case '+': next == '=' ? op(TokenType::kAssign, 2) : op(TokenType::kPlus, 1); continue;
      case '-': next == '=' ? op(TokenType::kAssign, 2) : op(TokenType::kMinus, 1); continue;
      case '*': next == '=' ? op(TokenType::kAssign, 2) : op(TokenType::kStar, 1); continue;
      case '/': next == '=' ? op(TokenType::kAssign, 2) : op(TokenType::kSlash, 1); continue;
      case '%': next == '=' ? op(TokenType::kAssign, 2) : op(TokenType::kPercent, 1); continue;
      case '^': next == '=' ? op(TokenType::kAssign, 2) : op(TokenType::kHat, 1); continue;
      case '(': op(TokenType::kLParen, 1); continue;
      case ')': op(TokenType::kRParen, 1); continue;
      case ',': op(TokenType::kComma, 1); continue;
      case ';': op(TokenType::kSemicolon, 1); continue;
      case '=': next == '=' ? op(TokenType::kEq, 2) : op(TokenType::kAssign, 1); continue;
      case '!': next == '=' ? op(TokenType::kNotEq, 2) : op(TokenType::kNot, 1); continue;
      case '<': next == '=' ? op(TokenType::kLtEq, 2) : op(TokenType::kLt, 1); continue;
      case '>': next == '=' ? op(TokenType::kGtEq, 2) : op(TokenType::kGt, 1); continue;
      case '&':
        if (next != '&') return Error{"unmatched '&' (use '&&')"};
        after == '=' ? op(TokenType::kAssign, 3) : op(TokenType::kAnd, 2);
        continue;
      case '|':
        if (next != '|') return Error{"unmatched '|' (use '||')"};
        after == '=' ? op(TokenType::kAssign, 3) : op(TokenType::kOr, 2);
        continue;
      default: break;
    }
    size_t j = i;
    while (j < text.size() && !ends_identifier(text[j])) ++j;
    // A float exponent's sign is an operator character: 2.5e-3 is one number.
    if (j + 1 < text.size() && (text[j] == '-' || text[j] == '+') && (text[j - 1] == 'e' || text[j - 1] == 'E') &&
        std::isdigit(uint8_t(text[i])) && std::isdigit(uint8_t(text[j + 1]))) {
      size_t k = j + 1;
      while (k < text.size() && !ends_identifier(text[k])) ++k;
      double f;
      if (parse_float(text.substr(i, k - i), &f)) j = k;
    }
    std::string_view word = text.substr(i, j - i);
    Token t{TokenType::kIdentifier, std::string(word)};
    if (word == "true" || word == "false") {
      t.type = TokenType::kBool;
      t.bool_value = word == "true";
    } else if (parse_int(word, &t.int_value)) {
      t.type = TokenType::kInt;
    } else if (parse_float(word, &t.float_value)) {
      t.type = TokenType::kFloat;
    }
    out.push_back(std::move(t));
    i = j;
  }
  return out;
}

}  // namespace buzz::engine
