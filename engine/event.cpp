// Event helpers; see event.h.
#include "engine/event.h"

namespace buzz::engine {

const Tag* Event::first_tag(std::string_view name) const {
  for (const Tag& t : tags) {
    if (t.size() >= 2 && t[0] == name) return &t;
  }
  return nullptr;
}

std::string_view Event::first_tag_value(std::string_view name) const {
  const Tag* t = first_tag(name);
  return t ? std::string_view((*t)[1]) : std::string_view();
}

std::optional<Pubkey> Event::first_pubkey_tag(std::string_view name) const {
  for (const Tag& t : tags) {
    Pubkey pk;
    if (t.size() >= 2 && t[0] == name && t[1].size() == 64 && from_hex_any_case(t[1], pk.data(), pk.size())) return pk;
  }
  return std::nullopt;
}

void EventFields::assign(const Event& e, std::string_view channel_id) {
  id = e.id.data();
  pubkey = e.pubkey.data();
  created_at = e.created_at;
  kind = e.kind;
  channel = channel_id;
  tags.clear();
  for (const Tag& t : e.tags) {
    if (t.size() >= 2 && t[0].size() == 1) tags.push_back({t[0][0], t[1]});
  }
}

}  // namespace buzz::engine
