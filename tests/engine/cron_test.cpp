// engine/cron.cpp: the Rust cron 0.16 dialect of workflow schedules (docs/reference/workflows.md §4.1).
#include "engine/cron.h"

#include <gtest/gtest.h>

namespace buzz::engine {
namespace {

// 2026-01-05 00:00:00 UTC, a Monday.
constexpr uint64_t kMonday = 1767571200;

uint64_t next(std::string_view expr, uint64_t after) {
  auto s = CronSchedule::parse(expr);
  EXPECT_TRUE(s.ok()) << expr << ": " << (s ? "" : s.error());
  if (!s) return 0;
  return s->next_after(after).value_or(0);
}

TEST(Cron, FiveFieldsGetSecondsZeroAndAnyYear) {
  EXPECT_EQ(next("30 9 * * *", kMonday), kMonday + 9 * 3600 + 30 * 60);
}

TEST(Cron, SixFieldsStartWithSeconds) {
  EXPECT_EQ(next("15 30 9 * * *", kMonday), kMonday + 9 * 3600 + 30 * 60 + 15);
  EXPECT_EQ(next("* * * * * *", kMonday), kMonday + 1);  // strictly after
}

TEST(Cron, SevenFieldsNameTheYear) {
  EXPECT_EQ(next("0 0 0 1 1 * 2027", kMonday), 1798761600u);  // 2027-01-01
  auto past = CronSchedule::parse("0 0 0 1 1 * 2020");
  ASSERT_TRUE(past.ok());
  EXPECT_FALSE(past->next_after(kMonday).has_value());
}

TEST(Cron, DayOfWeekOneIsSunday) {
  // "2-6" is Monday–Friday in this dialect; Monday 09:00 is the first match.
  EXPECT_EQ(next("0 9 * * 2-6", kMonday), kMonday + 9 * 3600);
  // 1 = Sunday: the Sunday after Monday the 5th is the 11th.
  EXPECT_EQ(next("0 9 * * 1", kMonday), kMonday + 6 * 86400 + 9 * 3600);
  EXPECT_EQ(next("0 30 9 * * MON-FRI", kMonday), kMonday + 9 * 3600 + 30 * 60);
  EXPECT_EQ(next("0 0 12 * * sat", kMonday), kMonday + 5 * 86400 + 12 * 3600);
  EXPECT_EQ(next("0 0 12 * * Saturday", kMonday), kMonday + 5 * 86400 + 12 * 3600);
  EXPECT_FALSE(CronSchedule::parse("0 9 * * 0").ok());  // no 0 for Sunday
}

TEST(Cron, DayOfMonthAndDayOfWeekBothMatch) {
  // The 13th that is a Friday (AND, not Vixie's OR): 2026-02-13.
  EXPECT_EQ(next("0 0 0 13 * FRI", kMonday), 1770940800u);
}

TEST(Cron, StepsRangesListsAndNames) {
  EXPECT_EQ(next("0 */15 * * * *", kMonday), kMonday + 15 * 60);
  EXPECT_EQ(next("0 50/5 * * * *", kMonday), kMonday + 50 * 60);  // N/S: N through the maximum
  EXPECT_EQ(next("0 0 1-3/2 * * *", kMonday), kMonday + 3600);
  EXPECT_EQ(next("0 0 5,7 * * *", kMonday), kMonday + 5 * 3600);
  EXPECT_EQ(next("0 0 0 1 MAR *", kMonday), 1772323200u);  // 2026-03-01
  EXPECT_EQ(next("0 0 0 ? * *", kMonday), kMonday + 86400);
}

TEST(Cron, Shorthands) {
  EXPECT_EQ(next("@hourly", kMonday), kMonday + 3600);
  EXPECT_EQ(next("@daily", kMonday), kMonday + 86400);
  EXPECT_EQ(next("@weekly", kMonday), kMonday + 6 * 86400);  // Sunday 00:00
  EXPECT_EQ(next("@monthly", kMonday), 1769904000u);         // 2026-02-01
  EXPECT_EQ(next("@yearly", kMonday), 1798761600u);
}

TEST(Cron, RefusesWhatTheCrateRefuses) {
  for (const char* bad : {"", "@never", "* * * *", "* * * * * * * *", "60 * * * * *", "* 60 * * * *", "* * 24 * * *",
                          "* * * 0 * *", "* * * 32 * *", "* * * * 13 *", "* * * * * 8", "* * * * * L", "* * * 5-1 * *",
                          "*/0 * * * * *", "*/61 * * * * *", "1,,2 * * * * *", "? * * * * *", "* * * * FOO *"}) {
    EXPECT_FALSE(CronSchedule::parse(bad).ok()) << bad;
  }
}

TEST(Cron, DueInTheTickWindow) {
  auto s = CronSchedule::parse("0 30 9 * * *");
  ASSERT_TRUE(s.ok());
  const uint64_t slot = kMonday + 9 * 3600 + 30 * 60;
  EXPECT_TRUE(s->due(slot));
  EXPECT_TRUE(s->due(slot + 59));
  EXPECT_FALSE(s->due(slot + 60));  // the window is (now - 60, now]
  EXPECT_FALSE(s->due(slot - 1));
}

}  // namespace
}  // namespace buzz::engine
