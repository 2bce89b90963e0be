// engine/condition*.cpp: the condition language of docs/reference/workflows.md §7 — lexer,
// parser, evaluator, functions and limits.
#include "engine/condition.h"

#include <gtest/gtest.h>

namespace buzz::engine {
namespace {

using V = ConditionValue;

ConditionVariables vars() {
  return {{"trigger_text", V::string("P1 outage in production")},
          {"trigger_author", V::string("abc")},
          {"steps_page_output_status", V::integer(201)},
          {"steps_page_output_ok", V::boolean(true)},
          {"ratio", V::real(0.5)},
          {"nothing", V::empty()}};
}

bool eval(std::string_view expr) {
  auto r = evaluate_condition(expr, vars());
  EXPECT_TRUE(r.ok()) << expr << ": " << (r ? "" : r.error());
  return r && *r;
}

std::string error(std::string_view expr) {
  auto r = evaluate_condition(expr, vars());
  EXPECT_FALSE(r.ok()) << expr;
  return r ? "" : r.error();
}

TEST(Condition, CompiledOnceEvaluatesLikeTheTextEachTime) {
  auto c = Condition::compile(R"(str_contains(trigger_text, "P1") && str_len(trigger_author) == 3)");
  ASSERT_TRUE(c.ok()) << c.error();
  ConditionVariables other = vars();
  other["trigger_text"] = V::string("all quiet");
  for (int i = 0; i < 3; ++i) {  // the tree is read, never changed, by an evaluation
    EXPECT_TRUE(*c->evaluate(vars()));
    EXPECT_FALSE(*c->evaluate(other));
  }
  auto missing = c->evaluate({});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().rfind("condition evaluation error: '" + c->text() + "': ", 0), 0u) << missing.error();
  EXPECT_FALSE(Condition::compile("1 +").ok());
}

TEST(ConditionLexer, TokensAndLiterals) {
  auto t = lex_condition(R"(a_b::c >= 0x1F && "x\"y" || 'q\'r' != 2.5e-3 // note)");
  ASSERT_TRUE(t.ok()) << t.error();
  ASSERT_EQ(t->size(), 9u);
  EXPECT_EQ((*t)[0].text, "a_b::c");
  EXPECT_EQ((*t)[2].int_value, 31);
  EXPECT_EQ((*t)[4].text, "x\"y");
  EXPECT_EQ((*t)[6].text, "q'r");
  auto f = lex_condition("1e3 2.5e-3 true");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)[0].type, TokenType::kFloat);
  EXPECT_DOUBLE_EQ((*f)[1].float_value, 0.0025);
  EXPECT_EQ((*f)[2].type, TokenType::kBool);
  EXPECT_FALSE(lex_condition("a & b").ok());
  EXPECT_FALSE(lex_condition("a | b").ok());
  EXPECT_FALSE(lex_condition(R"("\n")").ok());
  EXPECT_FALSE(lex_condition(R"("open)").ok());
  EXPECT_FALSE(lex_condition("/* open").ok());
}

TEST(ConditionParser, RefusesAssignmentAndChaining) {
  EXPECT_NE(parse_condition("a = 1").ok(), true);
  EXPECT_NE(parse_condition("a += 1").ok(), true);
  EXPECT_NE(parse_condition("true; true").ok(), true);
  EXPECT_NE(parse_condition("(1").ok(), true);
  EXPECT_NE(parse_condition("1)").ok(), true);
  EXPECT_NE(parse_condition("").ok(), true);
}

TEST(Condition, SpecExamples) {
  EXPECT_TRUE(eval(R"(str_contains(trigger_text, "P1"))"));
  EXPECT_TRUE(eval(R"(str_contains(trigger_text, 'P1'))"));  // Buzz: single quotes too
  EXPECT_TRUE(eval("steps_page_output_status >= 200 && steps_page_output_status < 300"));
  EXPECT_FALSE(eval("steps_page_output_status != 201"));
  EXPECT_TRUE(eval(R"(str_starts_with(trigger_text, "P1") && str_ends_with(trigger_text, "production"))"));
  EXPECT_TRUE(eval("str_len(trigger_author) == 3 && len(trigger_author) == 3"));
  EXPECT_TRUE(eval(R"(str::to_uppercase("aB") == "AB" && str::to_lowercase("aB") == "ab" && str::trim(" x ") == "x")"));
}

TEST(Condition, TypesFollowEvalexpr) {
  EXPECT_FALSE(eval("1 == 1.0"));  // different types are unequal
  EXPECT_FALSE(eval(R"("1" == 1)"));
  EXPECT_TRUE(eval("1 < 1.5"));  // numbers compare as floats
  EXPECT_TRUE(eval(R"("abc" < "abd")"));
  EXPECT_TRUE(eval("7 / 2 == 3 && 7 % 2 == 1 && 2 ^ 3 == 8.0"));
  EXPECT_TRUE(eval(R"("a" + "b" == "ab")"));
  EXPECT_TRUE(eval("-(2) == 0 - 2 && !false"));
  EXPECT_TRUE(eval("1 + 2 * 3 == 7 && (1 + 2) * 3 == 9"));
  EXPECT_TRUE(eval("ratio * 2 == 1.0"));
  EXPECT_TRUE(eval("steps_page_output_ok"));
  EXPECT_TRUE(eval("nothing == nothing"));
}

TEST(Condition, ErrorsAreWordedWithTheExpression) {
  EXPECT_EQ(error("trigger.text == \"x\"").rfind("condition evaluation error: 'trigger.text == \"x\"': ", 0), 0u);
  EXPECT_NE(error("unknown_var").find("not bound"), std::string::npos);
  EXPECT_NE(error("1 + 1").find("boolean"), std::string::npos);  // not a boolean result
  EXPECT_NE(error("1 / 0 == 1").find("division by zero"), std::string::npos);
  EXPECT_NE(error("9223372036854775807 + 1 == 0").find("overflow"), std::string::npos);
  EXPECT_NE(error(R"("a" + 1 == "a1")").find("cannot apply"), std::string::npos);
  EXPECT_NE(error("1 && true").find("cannot apply"), std::string::npos);
  EXPECT_NE(error(R"(str_contains("a"))").find("expects 2"), std::string::npos);
  EXPECT_NE(error("str_contains(1, 2)").find("string arguments"), std::string::npos);
  EXPECT_NE(error("max(1, 2) == 2").find("unsupported function"), std::string::npos);
  EXPECT_NE(error("a = 1").find("context not mutable"), std::string::npos);
}

TEST(Condition, NoShortCircuit) {
  // Both sides are evaluated: an unknown variable fails even behind a false &&.
  EXPECT_FALSE(evaluate_condition("false && missing_var", vars()).ok());
  EXPECT_FALSE(evaluate_condition("true || missing_var", vars()).ok());
}

TEST(Condition, LimitsHoldAgainstHostileInput) {
  EXPECT_NE(error(std::string(5000, ' ') + "true").find("limit of 4096"), std::string::npos);
  EXPECT_NE(error(std::string(2000, '(') + "true" + std::string(2000, ')')).find("nested too deeply"), std::string::npos);
  EXPECT_NE(error(std::string(2000, '!') + "true").find("nested too deeply"), std::string::npos);
  // A long flat chain is fine: no recursion per operand.
  std::string chain = "true";
  for (int i = 0; i < 500; ++i) chain += " && true";
  EXPECT_TRUE(eval(chain));
  // The budget is checked inside the evaluator.
  std::string wide = "1 == 1";
  for (int i = 0; i < 300; ++i) wide += " && 1 == 1";
  auto r = evaluate_condition(wide, vars(), std::chrono::milliseconds(-1));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("evaluation timed out after -1ms"), std::string::npos);
}

}  // namespace
}  // namespace buzz::engine
