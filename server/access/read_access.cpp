#include "server/access/read_access.h"

#include <algorithm>

#include "engine/channel.h"
#include "engine/kinds.h"

namespace buzz::server {
namespace {

bool can_match_gated(const engine::Filter& f) {
  if (!f.kinds) return true;
  return std::any_of(f.kinds->begin(), f.kinds->end(), [](uint16_t k) { return engine::is_p_gated(k); });
}

}  // namespace

bool passes_p_gate(const engine::Filter& f, const engine::Pubkey& self) {
  if (!can_match_gated(f)) return true;
  if (f.ids && !f.ids->empty() && !(f.kinds && f.has_kind(30622))) return true;
  const engine::TagFilter* p = f.tag('p');
  if (!p || p->values.empty()) return false;
  const std::string me = engine::to_hex(self);
  return std::all_of(p->values.begin(), p->values.end(), [&](const std::string& v) { return v == me; });
}

bool passes_p_gate(const std::vector<engine::Filter>& filters, const engine::Pubkey& self) {
  return std::all_of(filters.begin(), filters.end(), [&](const engine::Filter& f) { return passes_p_gate(f, self); });
}

std::string channel_scope(const std::vector<engine::Filter>& filters) {
  // Only #h values that parse as UUIDs name channels (protocol.md §9.1 step 4).
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

bool readable_by(const engine::EventFields& f, const engine::TeamState& team, const Grant& grant,
                 const engine::Pubkey& reader, std::string_view reader_hex) {
  if (!f.channel.empty()) return grant.allows_channel(f.channel) && team.can_read(f.channel, reader);
  return !engine::is_p_gated(f.kind) || names_reader(f, reader_hex);
}

}  // namespace buzz::server
