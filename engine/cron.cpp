// Parsing and stepping cron schedules; see cron.h. The scan in next_after moves
// day by day, then hour, minute and second within a matching day, so the cost
// is bounded by the days searched (at most the years the field allows).
#include "engine/cron.h"
#include "engine/text.h"

#include <array>
#include <cctype>
#include <ctime>
#include <vector>

namespace buzz::engine {
namespace {

constexpr std::array<std::string_view, 12> kMonthNames = {"jan", "feb", "mar", "apr", "may", "jun",
                                                          "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<std::string_view, 12> kMonthLong = {"january", "february", "march",     "april",
                                                         "may",     "june",     "july",      "august",
                                                         "september", "october", "november", "december"};
constexpr std::array<std::string_view, 7> kDayNames = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};
constexpr std::array<std::string_view, 7> kDayLong = {"sunday",   "monday", "tuesday", "wednesday",
                                                      "thursday", "friday", "saturday"};

enum class Names { kNone, kMonths, kDays };

struct FieldSpec {
  const char* name;
  int min, max;
  Names names;
  bool question_mark;  // `?` allowed (day-of-month, day-of-week)
};

constexpr FieldSpec kSeconds{"seconds", 0, 59, Names::kNone, false};
constexpr FieldSpec kMinutes{"minutes", 0, 59, Names::kNone, false};
constexpr FieldSpec kHours{"hours", 0, 23, Names::kNone, false};
constexpr FieldSpec kDaysOfMonth{"days of month", 1, 31, Names::kNone, true};
constexpr FieldSpec kMonths{"months", 1, 12, Names::kMonths, false};
constexpr FieldSpec kDaysOfWeek{"days of week", 1, 7, Names::kDays, true};
constexpr FieldSpec kYears{"years", CronSchedule::kMinYear, CronSchedule::kMaxYear, Names::kNone, false};

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t at = s.find(sep, start);
    parts.push_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

// One value: a number, or a name where the field has names.
Result<int> parse_value(std::string_view text, const FieldSpec& f) {
  if (text.empty()) return Error{std::string("empty value in ") + f.name + " field"};
  if (std::isdigit(uint8_t(text[0]))) {
    int v = 0;
    for (char c : text) {
      if (!std::isdigit(uint8_t(c))) return Error{"invalid number '" + std::string(text) + "' in " + f.name + " field"};
      v = v * 10 + (c - '0');
      if (v > 100000) break;
    }
    if (v < f.min || v > f.max) {
      return Error{std::string(f.name) + " value " + std::string(text) + " out of range " + std::to_string(f.min) + "-" +
                   std::to_string(f.max)};
    }
    return v;
  }
  const std::string name = lower(text);
  if (f.names == Names::kMonths) {
    for (size_t i = 0; i < 12; ++i) {
      if (name == kMonthNames[i] || name == kMonthLong[i]) return int(i + 1);
    }
  } else if (f.names == Names::kDays) {
    for (size_t i = 0; i < 7; ++i) {
      if (name == kDayNames[i] || name == kDayLong[i]) return int(i + 1);
    }
  }
  return Error{"invalid value '" + std::string(text) + "' in " + f.name + " field"};
}

// A whole field into a bit per allowed value.
template <size_t N>
Status parse_field(std::string_view text, const FieldSpec& f, std::bitset<N>* bits, int offset = 0) {
  for (std::string_view item : split(text, ',')) {
    if (item.empty()) return Error{std::string("empty list item in ") + f.name + " field"};
    std::string_view range = item;
    int step = 1;
    bool stepped = false;
    if (size_t slash = item.find('/'); slash != std::string_view::npos) {
      range = item.substr(0, slash);
      std::string_view step_text = item.substr(slash + 1);
      int s = 0;
      if (step_text.empty() || step_text.find_first_not_of("0123456789") != std::string_view::npos) {
        return Error{"invalid step '" + std::string(step_text) + "' in " + f.name + " field"};
      }
      for (char c : step_text) {
        s = s * 10 + (c - '0');
        if (s > 100000) break;
      }
      if (s < 1 || s > f.max) {
        return Error{"step " + std::string(step_text) + " out of range 1-" + std::to_string(f.max) + " in " + f.name +
                     " field"};
      }
      step = s;
      stepped = true;
    }
    int lo, hi;
    if (range == "*" || (range == "?" && f.question_mark)) {
      lo = f.min;
      hi = f.max;
    } else if (size_t dash = range.find('-'); dash != std::string_view::npos) {
      auto a = parse_value(range.substr(0, dash), f);
      if (!a) return Error{a.error()};
      auto b = parse_value(range.substr(dash + 1), f);
      if (!b) return Error{b.error()};
      if (*a > *b) return Error{"range " + std::string(range) + " is backwards in " + f.name + " field"};
      lo = *a;
      hi = *b;
    } else {
      auto v = parse_value(range, f);
      if (!v) return Error{v.error()};
      lo = *v;
      hi = stepped ? f.max : *v;  // N/S means N through the field's maximum
    }
    for (int v = lo; v <= hi; v += step) bits->set(size_t(v - offset));
  }
  return {};
}

// Days since 1970-01-01 for a civil date (Howard Hinnant's algorithm).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = unsigned(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + int64_t(doe) - 719468;
}

unsigned days_in_month(int y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) return 29;
  return kDays[m - 1];
}

std::string_view shorthand(std::string_view s) {
  if (s == "@yearly" || s == "@annually") return "0 0 0 1 1 * *";
  if (s == "@monthly") return "0 0 0 1 * * *";
  if (s == "@weekly") return "0 0 0 * * 1 *";
  if (s == "@daily") return "0 0 0 * * * *";
  if (s == "@hourly") return "0 0 * * * * *";
  return {};
}

}  // namespace

Result<CronSchedule> CronSchedule::parse(std::string_view expression) {
  std::vector<std::string> fields;
  std::string current;
  for (char c : expression) {
    if (std::isspace(uint8_t(c))) {
      if (!current.empty()) fields.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) fields.push_back(std::move(current));
  if (fields.size() == 1) {
    std::string_view expanded = shorthand(fields[0]);
    if (expanded.empty()) return Error{"unknown shorthand or too few fields: '" + fields[0] + "'"};
    return parse(expanded);
  }
  if (fields.size() == 5) fields.insert(fields.begin(), "0");
  if (fields.size() == 6) fields.push_back("*");
  if (fields.size() != 7) {
    return Error{"expected 5, 6 or 7 fields, got " + std::to_string(fields.size())};
  }
  CronSchedule s;
  Status st;
  if (!(st = parse_field(fields[0], kSeconds, &s.seconds_))) return Error{st.error()};
  if (!(st = parse_field(fields[1], kMinutes, &s.minutes_))) return Error{st.error()};
  if (!(st = parse_field(fields[2], kHours, &s.hours_))) return Error{st.error()};
  if (!(st = parse_field(fields[3], kDaysOfMonth, &s.days_of_month_))) return Error{st.error()};
  if (!(st = parse_field(fields[4], kMonths, &s.months_))) return Error{st.error()};
  if (!(st = parse_field(fields[5], kDaysOfWeek, &s.days_of_week_))) return Error{st.error()};
  if (!(st = parse_field(fields[6], kYears, &s.years_, kMinYear))) return Error{st.error()};
  return s;
}

std::optional<uint64_t> CronSchedule::next_after(uint64_t after) const {
  const uint64_t start = after + 1;
  int64_t day = int64_t(start / 86400);
  uint64_t second_of_day = start % 86400;
  std::time_t t = std::time_t(day * 86400);
  std::tm tm{};
  gmtime_r(&t, &tm);
  int year = tm.tm_year + 1900;
  unsigned month = unsigned(tm.tm_mon + 1), mday = unsigned(tm.tm_mday);
  for (; year <= kMaxYear; ++year, month = 1, mday = 1, second_of_day = 0) {
    if (year < kMinYear || !years_.test(size_t(year - kMinYear))) continue;
    for (; month <= 12; ++month, mday = 1, second_of_day = 0) {
      if (!months_.test(month)) continue;
      for (; mday <= days_in_month(year, month); ++mday, second_of_day = 0) {
        const int64_t d = days_from_civil(year, month, mday);
        const unsigned weekday = unsigned((d % 7 + 11) % 7) + 1;  // 1970-01-01 was a Thursday (5); 1 = Sunday
        if (!days_of_month_.test(mday) || !days_of_week_.test(weekday)) continue;
        for (unsigned h = unsigned(second_of_day / 3600); h < 24; ++h) {
          if (!hours_.test(h)) continue;
          const bool first_hour = h == second_of_day / 3600;
          for (unsigned m = first_hour ? unsigned(second_of_day / 60 % 60) : 0; m < 60; ++m) {
            if (!minutes_.test(m)) continue;
            const bool first_minute = first_hour && m == second_of_day / 60 % 60;
            for (unsigned s = first_minute ? unsigned(second_of_day % 60) : 0; s < 60; ++s) {
              if (seconds_.test(s)) return uint64_t(d) * 86400 + h * 3600 + m * 60 + s;
            }
          }
        }
      }
    }
  }
  return std::nullopt;
}

bool CronSchedule::due(uint64_t now, uint64_t window) const {
  auto next = next_after(now >= window ? now - window : 0);
  return next && *next <= now;
}

}  // namespace buzz::engine
