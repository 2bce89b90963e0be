// People: DMs, profiles, presence, the channel-add policy and the feed (§B.2).
#include "engine/json_text.h"
#include "engine/kind_numbers.h"
#include "tools/cli/cli_error.h"
#include "tools/cli/command.h"
#include "tools/cli/json_read.h"
#include "tools/cli/session.h"
#include "tools/cli/validate.h"

namespace buzz::cli {
namespace {

// {"pubkeys":[...]} of checked, lowercased keys.
std::string pubkeys_body(const std::vector<std::string>& keys) {
  std::vector<std::string> checked;
  for (const std::string& k : keys) checked.push_back(checked_hex64(k));
  return json_object({{"pubkeys", json_string_array(checked)}});
}

// {"<field>":"<value>"}
std::string one_field(const char* field, const std::string& value) { return json_object({{field, json_string(value)}}); }

std::string list_dms(Session& s, const Args& a) {
  std::optional<std::string> limit;
  if (auto v = a.get("limit")) limit = std::to_string(checked_number("limit", *v));
  return s.request("GET", "/api/dms" + query_string({{"cursor", a.get("cursor")}, {"limit", limit}}));
}

std::string open_dm(Session& s, const Args& a) {
  const std::vector<std::string> keys = a.all("pubkey");
  if (keys.empty() || keys.size() > 8) throw CliError(Category::kUser, "--pubkey: must provide 1\xE2\x80\x93" "8 pubkeys");
  return s.request("POST", "/api/dms", pubkeys_body(keys));
}

std::string add_dm_member(Session& s, const Args& a) {
  const std::string channel = checked_uuid(a.value("channel"));
  return s.request("POST", "/api/dms/" + channel + "/members", pubkeys_body({a.value("pubkey")}));
}

std::string get_users(Session& s, const Args& a) {
  const std::vector<std::string> keys = a.all("pubkey");
  if (keys.size() > 200) throw CliError(Category::kUser, "--pubkey: at most 200 pubkeys");
  if (keys.empty()) return s.request("GET", "/api/users/me/profile");
  if (keys.size() == 1) return s.request("GET", "/api/users/" + checked_hex64(keys[0]) + "/profile");
  return s.request("POST", "/api/users/batch", pubkeys_body(keys));
}

std::string set_profile(Session& s, const Args& a) {
  if (!a.has("name") && !a.has("avatar") && !a.has("about") && !a.has("nip05")) {
    throw CliError(Category::kUser, "at least one of --name, --avatar, --about or --nip05 must be provided");
  }
  s.key();  // a write: fail before the read when there is no key
  HttpAnswer current = s.request_any("GET", "/api/users/me/profile");
  if (current.status == 404) current.body = "{}";  // no profile yet: merge into nothing
  else if (current.status / 100 != 2) throw_relay_error(current);
  auto field = [&](const char* flag, const char* name) {
    return a.has(flag) ? a.get(flag) : string_field(current.body, name);
  };
  std::optional<std::string> display_name = a.has("name") ? a.get("name") : string_field(current.body, "display_name");
  if (!display_name) display_name = string_field(current.body, "name");
  const std::pair<const char*, std::optional<std::string>> fields[] = {
      {"display_name", display_name},
      {"picture", field("avatar", "picture")},
      {"about", field("about", "about")},
      {"nip05", field("nip05", "nip05")}};
  JsonFields content;
  for (const auto& [name, value] : fields) {
    if (value) content.string(name, *value);
  }
  engine::Event e;
  e.kind = kind::kProfile;
  e.content = content.str();
  return s.post_event(std::move(e));
}

std::string get_presence(Session& s, const Args& a) {
  return s.request("GET", "/api/presence" + query_string({{"pubkeys", a.value("pubkeys")}}));
}

std::string set_presence(Session& s, const Args& a) {
  const std::string status = checked_choice("status", a.value("status"), {"online", "away", "offline"});
  return s.request("PUT", "/api/presence", one_field("status", status));
}

std::string set_channel_add_policy(Session& s, const Args& a) {
  const std::string policy = checked_choice("policy", a.value("policy"), {"anyone", "owner_only", "nobody"});
  return s.request("PUT", "/api/users/me/channel-add-policy", one_field("channel_add_policy", policy));
}

std::string get_feed(Session& s, const Args& a) {
  std::optional<std::string> since;
  if (auto v = a.get("since")) since = std::to_string(checked_number("since", *v));
  const std::string limit = std::to_string(clamped_limit("limit", a.get("limit"), 20, 50));
  return s.request("GET", "/api/feed" + query_string({{"limit", limit}, {"since", since}, {"types", a.get("types")}}));
}

}  // namespace

std::vector<Command> people_commands() {
  using F = Flag;
  return {
      {"list-dms", "List your direct-message conversations",
       {{"cursor", F::kValue, false, "the last channel UUID of the previous page"},
        {"limit", F::kValue, false, "rows (default 50, max 200)"}},
       list_dms},
      {"open-dm", "Open (or find) a DM with 1 to 8 people",
       {{"pubkey", F::kRepeated, true, "participant pubkey (64 hex)"}}, open_dm},
      {"add-dm-member", "Add someone to a group DM",
       {{"channel", F::kValue, true, "DM channel UUID"}, {"pubkey", F::kValue, true, "pubkey (64 hex)"}}, add_dm_member},
      {"get-users", "Profiles: yours (no --pubkey), one, or up to 200",
       {{"pubkey", F::kRepeated, false, "pubkey (64 hex)"}}, get_users},
      {"set-profile", "Update your profile (kind 0), keeping the fields you do not give",
       {{"name", F::kValue, false, "display name"},
        {"avatar", F::kValue, false, "picture URL"},
        {"about", F::kValue, false, "about text"},
        {"nip05", F::kValue, false, "NIP-05 identifier"}},
       set_profile},
      {"get-presence", "Presence of some people", {{"pubkeys", F::kValue, true, "comma-separated pubkeys"}}, get_presence},
      {"set-presence", "Set your presence", {{"status", F::kValue, true, "online, away or offline"}}, set_presence},
      {"set-channel-add-policy", "Who may add you to channels",
       {{"policy", F::kValue, true, "anyone, owner_only or nobody"}}, set_channel_add_policy},
      {"get-feed", "Your feed: mentions, what needs action, activity",
       {{"since", F::kValue, false, "unix time (default: a week ago)"},
        {"limit", F::kValue, false, "per category (default 20, max 50)"},
        {"types", F::kValue, false, "comma-separated: mentions,needs_action,activity,agent_activity"}},
       get_feed},
  };
}

}  // namespace buzz::cli
