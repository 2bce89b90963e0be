// Who may read what (docs/reference/protocol.md §9.3–9.4): the rules REQ, COUNT, the HTTP
// bridge and live fan-out share, so no path can answer differently.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/event.h"
#include "engine/filter.h"
#include "engine/team_state.h"
#include "server/access/grant.h"

namespace buzz::server {

// The single channel every filter names in #h (values that parse as UUIDs),
// or empty for a global subscription.
std::string channel_scope(const std::vector<engine::Filter>& filters);

// Whether this reader may read what belongs to the channel: its grant reaches
// the channel, and the channel is open or it is a member. The rule of a
// channel's events below, and of a channel's media blobs (docs/reference/media.md §6.5).
bool may_read_channel(std::string_view channel, const engine::TeamState& team, const Grant& grant,
                      const engine::Pubkey& reader);

// Whether a stored event may go to this reader: channel events only from
// channels it may read (open, or a member of) and its grant reaches; a
// p-gated kind (engine::is_p_gated) only to a pubkey it names in a p tag,
// wherever it appears — such events are stored globally yet may carry a
// channel's h tag; a self-only kind (engine::is_self_only, a read marker) only
// to its author. This is the p-gate (docs/reference/protocol.md §9.3), applied per event:
// a filter that could match gated kinds is narrowed by it, never refused.
bool readable_by(const engine::EventFields& f, const engine::TeamState& team, const Grant& grant,
                 const engine::Pubkey& reader, std::string_view reader_hex);

// Whether an event of a p-gated kind names this reader in a p tag.
bool names_reader(const engine::EventFields& f, std::string_view reader_hex);

}  // namespace buzz::server
