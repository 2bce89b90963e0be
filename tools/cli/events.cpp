#include "tools/cli/events.h"

#include <algorithm>
#include <cctype>

#include "engine/kind_numbers.h"
#include "tools/cli/validate.h"

namespace buzz::cli {

engine::Event channel_event(uint16_t kind, const std::string& channel, std::vector<engine::Tag> extra,
                            std::string content) {
  engine::Event e;
  e.kind = kind;
  e.content = std::move(content);
  e.tags.push_back({"h", channel});
  for (engine::Tag& t : extra) e.tags.push_back(std::move(t));
  return e;
}

void append_reply_tags(std::vector<engine::Tag>& tags, const std::string& root, const std::string& parent) {
  if (root != parent) tags.push_back({"e", root, "", "root"});
  tags.push_back({"e", parent, "", "reply"});
}

engine::Event message_event(const std::string& channel, std::string content, const std::optional<std::string>& reply_to,
                            const std::vector<std::string>& mentions, bool broadcast) {
  constexpr size_t kMaxMentions = 50;
  engine::Event e = channel_event(9, channel, {}, std::move(content));
  if (reply_to) append_reply_tags(e.tags, *reply_to, *reply_to);
  std::vector<std::string> seen;
  for (std::string p : mentions) {
    std::transform(p.begin(), p.end(), p.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (seen.size() == kMaxMentions || std::find(seen.begin(), seen.end(), p) != seen.end()) continue;
    seen.push_back(p);
    e.tags.push_back({"p", p});
  }
  if (broadcast) e.tags.push_back({"broadcast", "1"});
  return e;
}

engine::Event create_channel_event(const std::string& name, const std::string& type, const std::string& visibility,
                                   const std::optional<std::string>& about) {
  engine::Event e = channel_event(kind::kCreateGroup, new_uuid_v4(),
                                  {{"name", name}, {"visibility", visibility}, {"channel_type", type}});
  if (about) e.tags.push_back({"about", *about});
  return e;
}

}  // namespace buzz::cli
