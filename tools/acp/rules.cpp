// The subscription rules; see rules.h. The rules file is read with a small
// TOML reader of what the format needs: [[rules]] tables whose keys hold
// strings (basic or literal), integers, booleans and arrays of those.
#include "tools/acp/rules.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/kind_numbers.h"
#include "engine/text.h"

namespace buzz::acp {
namespace {

constexpr size_t kMaxRules = 100;
constexpr size_t kMaxFilter = 4096;
constexpr int kDisableAfterTimeouts = 5;

struct Value {
  enum Type { kString, kInt, kBool, kArray } type = kString;
  std::string s;
  int64_t i = 0;
  bool b = false;
  std::vector<Value> items;
};

using Table = std::vector<std::pair<std::string, Value>>;

class TomlReader {
 public:
  explicit TomlReader(const std::string& text) : t_(text) {}

  // The [[rules]] tables in order; *error on a syntax error.
  std::vector<Table> rules(std::string* error) {
    std::vector<Table> out;
    Table* current = nullptr;
    Table top;
    for (;;) {
      skip_space(true);
      if (at_ >= t_.size()) return out;
      if (t_.compare(at_, 2, "[[") == 0) {
        const size_t end = t_.find("]]", at_);
        if (end == std::string::npos) return fail(error, "unterminated table header"), out;
        std::string name = t_.substr(at_ + 2, end - at_ - 2);
        name.erase(0, name.find_first_not_of(" \t"));
        name.erase(name.find_last_not_of(" \t") + 1);
        at_ = end + 2;
        if (name != "rules") return fail(error, "unknown table [[" + name + "]]"), out;
        out.emplace_back();
        current = &out.back();
        continue;
      }
      if (t_[at_] == '[') return fail(error, "only [[rules]] tables are read"), out;
      const size_t key_start = at_;
      while (at_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[at_])) || t_[at_] == '_' || t_[at_] == '-')) ++at_;
      std::string key = t_.substr(key_start, at_ - key_start);
      if (key.empty()) return fail(error, "expected a key"), out;
      skip_space(false);
      if (at_ >= t_.size() || t_[at_] != '=') return fail(error, "expected '=' after " + key), out;
      ++at_;
      skip_space(false);
      Value v;
      if (!value(&v, error)) return out;
      (current ? *current : top).emplace_back(std::move(key), std::move(v));
    }
  }

 private:
  void fail(std::string* error, const std::string& what) {
    const size_t line = size_t(std::count(t_.begin(), t_.begin() + long(std::min(at_, t_.size())), '\n')) + 1;
    *error = "invalid rules file: line " + std::to_string(line) + ": " + what;
  }

  void skip_space(bool newlines) {
    while (at_ < t_.size()) {
      const char c = t_[at_];
      if (c == ' ' || c == '\t' || c == '\r' || (newlines && c == '\n')) {
        ++at_;
      } else if (c == '#') {
        while (at_ < t_.size() && t_[at_] != '\n') ++at_;
      } else {
        return;
      }
    }
  }

  bool value(Value* v, std::string* error) {
    if (at_ >= t_.size()) return fail(error, "expected a value"), false;
    const char c = t_[at_];
    if (c == '"' || c == '\'') {
      v->type = Value::kString;
      ++at_;
      for (;;) {
        if (at_ >= t_.size() || t_[at_] == '\n') return fail(error, "unterminated string"), false;
        const char d = t_[at_++];
        if (d == c) return true;
        if (d == '\\' && c == '"' && at_ < t_.size()) {
          const char e = t_[at_++];
          v->s += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
          continue;
        }
        v->s += d;
      }
    }
    if (c == '[') {
      v->type = Value::kArray;
      ++at_;
      for (;;) {
        skip_space(true);
        if (at_ < t_.size() && t_[at_] == ']') return ++at_, true;
        Value item;
        if (!value(&item, error)) return false;
        v->items.push_back(std::move(item));
        skip_space(true);
        if (at_ < t_.size() && t_[at_] == ',') ++at_;
        else if (at_ >= t_.size() || t_[at_] != ']') return fail(error, "expected ',' or ']' in an array"), false;
      }
    }
    if (t_.compare(at_, 4, "true") == 0 || t_.compare(at_, 5, "false") == 0) {
      v->type = Value::kBool;
      v->b = t_[at_] == 't';
      at_ += v->b ? 4 : 5;
      return true;
    }
    size_t end = at_;
    if (end < t_.size() && (t_[end] == '-' || t_[end] == '+')) ++end;
    std::string digits = t_.substr(at_, end - at_);
    while (end < t_.size() && (std::isdigit(static_cast<unsigned char>(t_[end])) || t_[end] == '_')) {
      if (t_[end] != '_') digits += t_[end];
      ++end;
    }
    if (digits.empty() || digits == "-" || digits == "+") return fail(error, "expected a value"), false;
    v->type = Value::kInt;
    v->i = std::stoll(digits);
    at_ = end;
    return true;
  }

  const std::string& t_;
  size_t at_ = 0;
};

bool mentions(const engine::Event& e, const std::string& agent_hex) {
  return std::any_of(e.tags.begin(), e.tags.end(),
                     [&](const engine::Tag& t) { return t.size() >= 2 && t[0] == "p" && t[1] == agent_hex; });
}

}  // namespace

bool Rule::covers(const std::string& channel) const {
  return all_channels || std::find(channels.begin(), channels.end(), channel) != channels.end();
}

engine::Result<std::vector<Rule>> parse_rules(const std::string& toml) {
  std::string error;
  std::vector<Table> tables = TomlReader(toml).rules(&error);
  if (!error.empty()) return engine::Error{error};
  if (tables.size() > kMaxRules) {
    return engine::Error{"too many rules (" + std::to_string(tables.size()) + ", max " + std::to_string(kMaxRules) + ")"};
  }
  std::vector<Rule> rules;
  std::set<std::string> names;
  for (const Table& table : tables) {
    Rule r;
    std::optional<std::string> filter;
    for (const auto& [key, v] : table) {
      const std::string& field = key;  // a lambda may not capture a structured binding before clang 16
      auto bad = [&](const std::string& what) { return engine::Error{"rule '" + r.name + "': " + field + " must be " + what}; };
      if (key == "name") {
        if (v.type != Value::kString) return bad("a string");
        r.name = v.s;
      } else if (key == "channels") {
        if (v.type == Value::kString) {
          if (v.s != "all") return engine::Error{"rule '" + r.name + "': channels must be \"all\" or a list, got \"" + v.s + "\""};
          r.all_channels = true;
        } else if (v.type == Value::kArray) {
          r.all_channels = false;
          for (const Value& c : v.items) {
            if (c.type != Value::kString) return bad("\"all\" or a list of channel UUIDs");
            r.channels.push_back(engine::lower(c.s));
          }
        } else {
          return bad("\"all\" or a list");
        }
      } else if (key == "kinds") {
        if (v.type != Value::kArray) return bad("a list of kinds");
        for (const Value& k : v.items) {
          if (k.type != Value::kInt || k.i < 0 || k.i > 65535) return bad("a list of kinds (0–65535)");
          r.kinds.push_back(int(k.i));
        }
      } else if (key == "require_mention") {
        if (v.type != Value::kBool) return bad("true or false");
        r.require_mention = v.b;
      } else if (key == "filter") {
        if (v.type != Value::kString) return bad("a string");
        filter = v.s;
      } else if (key == "prompt_tag") {
        if (v.type != Value::kString) return bad("a string");
        r.prompt_tag = v.s;
      } else {
        return engine::Error{"rule '" + r.name + "': unknown key " + key};
      }
    }
    if (r.name.find_first_not_of(" \t") == std::string::npos) return engine::Error{"rule name must not be empty"};
    if (!names.insert(r.name).second) return engine::Error{"duplicate rule name: " + r.name};
    if (filter) {
      if (filter->size() > kMaxFilter) {
        return engine::Error{"rule '" + r.name + "': filter too long (" + std::to_string(filter->size()) + " bytes, max " +
                             std::to_string(kMaxFilter) + ")"};
      }
      auto compiled = engine::Condition::compile(*filter);
      if (!compiled) return engine::Error{"rule '" + r.name + "': invalid filter expression: " + compiled.error()};
      r.filter = std::move(*compiled);
    }
    if (r.prompt_tag.empty()) r.prompt_tag = r.name;
    rules.push_back(std::move(r));
  }
  if (rules.empty()) std::fprintf(stderr, "buzz acp: warning: the rules file has no rules: the agent will receive nothing\n");
  return rules;
}

engine::Result<std::vector<Rule>> rules_for(const Config& config) {
  if (config.subscribe == SubscribeMode::kConfig) {
    std::ifstream in(config.config_path, std::ios::binary);
    if (!in) return engine::Error{"cannot read the rules file " + config.config_path};
    std::ostringstream text;
    text << in.rdbuf();
    return parse_rules(text.str());
  }
  Rule r;
  const bool mentions_mode = config.subscribe == SubscribeMode::kMentions;
  r.name = mentions_mode ? "mentions" : "all";
  r.kinds = config.kinds.value_or(
      mentions_mode ? std::vector<int>{kind::kStreamMessage, kind::kApprovalRequested, kind::kReminder}
                    : std::vector<int>{});
  r.require_mention = mentions_mode && !config.no_mention_filter;
  r.prompt_tag = mentions_mode ? "@mention" : "all";
  return std::vector<Rule>{std::move(r)};
}

Rule* match_rule(std::vector<Rule>& rules, const engine::Event& e, const std::string& channel, const std::string& agent_hex) {
  engine::ConditionVariables vars;
  bool vars_made = false;
  for (Rule& r : rules) {
    if (!r.covers(channel)) continue;
    if (!r.kinds.empty() && std::find(r.kinds.begin(), r.kinds.end(), int(e.kind)) == r.kinds.end()) continue;
    if (r.require_mention && !mentions(e, agent_hex)) continue;
    if (!r.filter) return &r;
    if (r.disabled) return nullptr;  // fail closed: a disabled rule matches nothing, and ends the search
    if (!vars_made) {
      vars = {{"content", engine::ConditionValue::string(e.content)},
              {"author", engine::ConditionValue::string(e.pubkey_hex())},
              {"kind", engine::ConditionValue::integer(e.kind)},
              {"channel_id", engine::ConditionValue::string(channel)},
              {"timestamp", engine::ConditionValue::integer(int64_t(e.created_at))}};
      vars_made = true;
    }
    auto result = r.filter->evaluate(vars);
    if (!result) {
      if (result.error().find("timed out") != std::string::npos && ++r.consecutive_timeouts >= kDisableAfterTimeouts) {
        r.disabled = true;
        std::fprintf(stderr, "buzz acp: rule '%s' disabled after %d filter timeouts in a row\n", r.name.c_str(),
                     kDisableAfterTimeouts);
      }
      return nullptr;  // fail closed: no rule matches this event
    }
    r.consecutive_timeouts = 0;
    if (*result) return &r;
  }
  return nullptr;
}

std::optional<ChannelFilter> channel_filter(const std::vector<Rule>& rules, const std::string& channel) {
  ChannelFilter f;
  bool any = false, wildcard = false, all_mention = true;
  std::set<int> kinds;
  for (const Rule& r : rules) {
    if (!r.covers(channel)) continue;
    any = true;
    if (r.kinds.empty()) wildcard = true;
    kinds.insert(r.kinds.begin(), r.kinds.end());
    all_mention = all_mention && r.require_mention;
  }
  if (!any) return std::nullopt;
  if (!wildcard) f.kinds.assign(kinds.begin(), kinds.end());
  f.require_mention = all_mention;
  return f;
}

}  // namespace buzz::acp
