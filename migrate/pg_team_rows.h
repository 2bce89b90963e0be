// Channels and their members as the original's `channels` and `channel_members`
// rows (docs/reference/compat-backends.md §1.2). One row writer for both
// directions out of Buzz: the COPY rows `buzz migrate export` writes, and the
// upserts with which a relay serving PostgreSQL keeps those tables current as
// channels are made, edited, archived, deleted and their members change, so an
// original relay on the same database reads the same team (and a workflow's
// row gets its channel_id). `buzz migrate import` reads them back
// (pg_import.cpp).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/channel.h"
#include "engine/event_store.h"
#include "migrate/copy_row.h"
#include "migrate/pg_connection.h"

namespace buzz::migrate {

// "table (col, …)" for StepWriter, in the order the append_* functions write.
std::string channels_copy();
std::string channel_members_copy();

// Empty strings, zero keys and zero times are NULL. A member's join order
// rides in joined_at's microseconds (upstream's NOW() has them too), so
// members who joined in one second keep their order.
void append_channel(CopyRow& r, const engine::Channel& c);
void append_member(CopyRow& r, std::string_view channel, const engine::ChannelMember& m);

// The upserts of the channel and member records among `writes` (the last
// write of each key), channels first, for the transaction that writes them to
// buzz_state. A member of a channel the table lacks is skipped (its channel
// comes with it or was never written). A DM's participant_hash, unique in the
// original's table, is taken from a deleted channel that holds it, and from
// any other when the written one is live; a deleted one never takes it from a
// live one.
std::vector<PgConnection::Statement> team_mirror_statements(std::span<const engine::StateWrite> writes);

}  // namespace buzz::migrate
