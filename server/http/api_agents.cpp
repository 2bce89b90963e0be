// GET /api/agents (docs/reference/rest-api.md §3.9): every pubkey holding the bot role in a
// live channel, with its agent profile and presence. A bot's channels are
// listed only where the caller may read them (member or open, and the token's
// channel list), and its presence only if it shares a channel with the caller,
// as GET /api/presence does.
#include <algorithm>
#include <map>

#include "engine/clock.h"
#include "engine/json_text.h"
#include "server/http/http_api.h"

namespace buzz::server {
namespace {

constexpr size_t kMaxAgents = 1000;

}  // namespace

net::HttpResponse HttpApi::list_agents(const Caller& who) {
  std::map<engine::Pubkey, std::vector<std::string>> bots;  // pubkey -> its channels
  for (auto& [channel, pk] : s_.team.role_holders(engine::ChannelRole::kBot)) bots[pk].push_back(std::move(channel));
  std::vector<std::string> readable = s_.team.readable_channels(who.pubkey);
  std::sort(readable.begin(), readable.end());
  const auto audience = s_.team.co_members(who.pubkey);
  const uint64_t now = engine::unix_now();

  struct Agent {
    std::string name;
    std::string json;
  };
  std::vector<Agent> agents;
  for (auto& [pk, channels] : bots) {
    std::sort(channels.begin(), channels.end());
    std::vector<std::string> names, ids;
    for (const std::string& id : channels) {
      if (!who.grant.allows_channel(id) || !std::binary_search(readable.begin(), readable.end(), id)) continue;
      if (auto ch = s_.team.find_channel(id)) {
        names.push_back(ch->name);
        ids.push_back(id);
      }
    }
    const std::string hex = engine::to_hex(pk);
    const Profile p = s_.profiles.find(pk).value_or(Profile{});
    std::string name = p.display_name.empty() ? "agent-" + hex.substr(0, 8) : p.display_name;
    auto status = audience.count(pk) ? s_.presence.status(pk, now) : std::nullopt;
    std::string json = json_object({{"pubkey", json_string(hex)},
                                    {"name", json_string(name)},
                                    {"agent_type", json_string(p.agent_type)},
                                    {"channels", json_string_array(names)},
                                    {"channel_ids", json_string_array(ids)},
                                    {"capabilities", json_string_array(p.capabilities)},
                                    {"status", json_string(status.value_or("offline"))}});
    agents.push_back({std::move(name), std::move(json)});
  }
  std::stable_sort(agents.begin(), agents.end(), [](const Agent& a, const Agent& b) { return a.name < b.name; });
  if (agents.size() > kMaxAgents) agents.resize(kMaxAgents);
  std::vector<std::string> out;
  for (Agent& a : agents) out.push_back(std::move(a.json));
  return net::HttpResponse::json(200, json_array(out));
}

}  // namespace buzz::server
