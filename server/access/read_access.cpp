// The read rules; see read_access.h.
#include "server/access/read_access.h"

#include <algorithm>
#include <cstring>

#include "engine/channel.h"
#include "engine/kinds.h"

namespace buzz::server {

std::string channel_scope(const std::vector<engine::Filter>& filters) {
  // Only #h values that parse as UUIDs name channels (docs/reference/protocol.md §9.1 step 4).
  std::string scope;
  for (const engine::Filter& f : filters) {
    const engine::TagFilter* h = f.tag('h');
    if (!h) return {};
    bool named = false;
    for (const std::string& v : h->values) {
      if (!engine::parses_as_uuid(v)) continue;
      if (scope.empty()) scope = v;
      else if (v != scope) return {};
      named = true;
    }
    if (!named) return {};
  }
  return scope;
}

bool names_reader(const engine::EventFields& f, std::string_view reader_hex) {
  return std::any_of(f.tags.begin(), f.tags.end(),
                     [&](const engine::TagRef& t) { return t.name == 'p' && t.value == reader_hex; });
}

bool may_read_channel(std::string_view channel, const engine::TeamState& team, const Grant& grant,
                      const engine::Pubkey& reader) {
  return grant.allows_channel(channel) && team.can_read(channel, reader);
}

bool readable_by(const engine::EventFields& f, const engine::TeamState& team, const Grant& grant,
                 const engine::Pubkey& reader, std::string_view reader_hex) {
  if (engine::is_self_only(f.kind)) return std::memcmp(f.pubkey, reader.data(), reader.size()) == 0;
  if (!f.channel.empty()) return may_read_channel(f.channel, team, grant, reader);
  return !engine::is_p_gated(f.kind) || names_reader(f, reader_hex);
}

}  // namespace buzz::server
