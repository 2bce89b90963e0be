// Direct messages over REST (docs/reference/rest-api.md §3.10): list, open, "add" members
// (a new DM: sets are immutable) and hide.
//
// Opening, adding and hiding change the team state and emit relay-signed
// follow-ups, so they run where the 41010–41012 commands run: on the store
// writer, through TeamModel::run_dm. The request is checked for shape here,
// queued as a kDm job, and answered by dm_response() once its batch is durable.
// The list shows only the caller's own DMs; a hidden DM leaves the list but
// stays readable and writable.
#include <algorithm>

#include "engine/channel.h"
#include "engine/json_text.h"
#include "server/common/api_error.h"
#include "server/http/http_api.h"
#include "server/http/rest_params.h"

namespace buzz::server {
namespace {

constexpr int64_t kDmsLimit = 50, kMaxDmsLimit = 200;

struct DmRow {
  engine::Channel channel;
  std::vector<engine::ChannelMember> members;
};

// Newest first by updated_at; the id breaks ties, so a cursor never skips a DM
// that shares its second with the page's last one.
bool listed_before(const engine::Channel& a, const engine::Channel& b) {
  return std::pair(b.updated_at(), a.id) < std::pair(a.updated_at(), b.id);
}

// The HTTP wording of each refusal (docs/reference/rest-api.md §3.10).
net::HttpResponse dm_refusal(DmStatus s) {
  switch (s) {
    case DmStatus::kNoOthers: return api_error(400, "pubkeys must contain at least 1 other participant");
    case DmStatus::kTooManyOthers:
      return api_error(400, "pubkeys may contain at most 8 other participants (9 total including self)");
    case DmStatus::kNotFound: return api_error(404, "DM not found");
    case DmStatus::kNotDm: return api_error(400, "channel is not a DM");
    case DmStatus::kNotMember: return api_error(403, "not a member of this DM");
    case DmStatus::kNoNewParticipant: return api_error(400, "pubkeys must contain at least 1 new participant");
    case DmStatus::kTooManyParticipants: return api_error(422, "DM supports at most 9 participants");
    case DmStatus::kBusy: return api_error(503, "error: audit backlog full, retry");
    case DmStatus::kOk:
    case DmStatus::kFailed: break;
  }
  return api_error(500, "internal server error");
}

}  // namespace

net::HttpResponse HttpApi::list_dms(const Caller& who, const net::HttpRequest& req) {
  std::optional<int64_t> limit = query_int(req, "limit", kDmsLimit, 1, kMaxDmsLimit);
  if (!limit) return api_error(400, "invalid limit");
  // The cursor is a DM of the caller's, hidden or not (it may have been hidden since).
  std::optional<engine::Channel> after;
  if (has_query_param(req, "cursor")) {
    const std::string cursor = req.query_param("cursor");
    if (engine::is_canonical_uuid(cursor) && s_.team.is_member(cursor, who.pubkey)) after = s_.team.find_channel(cursor);
    if (!after || after->type != engine::ChannelType::kDm) return api_error(400, "invalid cursor format");
  }
  std::vector<DmRow> rows;
  for (const std::string& id : s_.team.readable_channels(who.pubkey)) {
    if (!who.grant.allows_channel(id)) continue;
    std::optional<engine::Channel> ch = s_.team.find_channel(id);
    if (!ch || ch->type != engine::ChannelType::kDm) continue;
    if (after && !listed_before(*after, *ch)) continue;
    DmRow row{std::move(*ch), s_.team.members_of(id)};
    auto self = std::find_if(row.members.begin(), row.members.end(), [&](const auto& m) { return m.pubkey == who.pubkey; });
    if (self == row.members.end() || self->hidden_at) continue;
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(), [](const DmRow& a, const DmRow& b) { return listed_before(a.channel, b.channel); });
  const bool more = rows.size() > size_t(*limit);
  if (more) rows.resize(size_t(*limit));
  std::vector<std::string> dms;
  for (const DmRow& r : rows) {
    std::vector<std::string> participants;
    for (const engine::ChannelMember& m : r.members) {
      participants.push_back(json_object({{"pubkey", json_string(engine::to_hex(m.pubkey))},
                                          {"display_name", json_string_or_null(s_.profiles.display_name(m.pubkey))},
                                          {"role", json_string(engine::channel_role_name(m.role))}}));
    }
    dms.push_back(json_object({{"channel_id", json_string(r.channel.id)},
                               {"participants", json_array(participants)},
                               {"last_message_at", json_string(engine::rfc3339(r.channel.updated_at()))},
                               {"created_at", json_string(engine::rfc3339(r.channel.created_at))}}));
  }
  std::string next = more ? json_string(rows.back().channel.id) : "null";
  return net::HttpResponse::json(200, json_object({{"dms", json_array(dms)}, {"next_cursor", next}}));
}

std::optional<net::HttpResponse> HttpApi::change_dm(const Caller& who, net::Connection& conn, const net::HttpRequest& req,
                                                  DmOp op, std::string_view dm) {
  DmRequest r;
  r.op = op;
  r.actor = who.pubkey;
  if (op == DmOp::kOpen) {
    // A channel-restricted token cannot name a channel that does not exist yet.
    if (who.grant.channel_restricted()) {
      return api_error(403, "channel_not_permitted", "Channel-restricted tokens cannot open DMs");
    }
  } else {
    if (!engine::is_canonical_uuid(dm)) return api_error(400, "invalid channel_id format");
    if (!who.grant.allows_channel(dm)) {
      return api_error(403, "channel_not_permitted", "Token does not have access to this channel");
    }
    r.channel = dm;
  }
  if (op != DmOp::kHide) {
    std::vector<std::string> keys;
    if (auto bad = parse_pubkeys_body(req.body, &keys)) return api_error(bad->status, bad->message);
    for (const std::string& k : keys) {
      engine::Pubkey pk;
      switch (parse_pubkey(k, &pk)) {
        case KeyParse::kOk: r.pubkeys.push_back(pk); break;
        case KeyParse::kNotHex: return api_error(400, "invalid pubkey hex: " + k);
        case KeyParse::kWrongLength: return api_error(400, "pubkey must be 32 bytes (64 hex chars): " + k);
      }
    }
  }
  if (!s_.writer.submit({RunDm{std::move(r)}, conn.id(), who.pubkey})) return api_error(503, "rate-limited: too many concurrent requests");
  return std::nullopt;  // dm_response() answers once the batch is durable
}

net::HttpResponse HttpApi::dm_response(const DmReply& reply) const {
  const DmOutcome& out = reply.outcome;
  if (out.status != DmStatus::kOk) return dm_refusal(out.status);
  if (reply.op == DmOp::kHide) return net::HttpResponse{204, "", "", {}, {}};
  std::vector<std::string> participants;
  for (const engine::Pubkey& pk : out.participants) {
    participants.push_back(json_object({{"pubkey", json_string(engine::to_hex(pk))},
                                        {"display_name", json_string_or_null(s_.profiles.display_name(pk))},
                                        {"role", json_string("member")}}));  // every DM participant is a member
  }
  std::vector<std::pair<std::string, std::string>> body = {{"channel_id", json_string(out.channel_id)},
                                                           {"created", out.created ? "true" : "false"},
                                                           {"participants", json_array(participants)}};
  if (reply.op == DmOp::kAdd) {
    body.emplace_back("note",
                      json_string("A new DM was created with the expanded participant set. The original DM is unchanged."));
  }
  return net::HttpResponse::json(out.created ? 201 : 200, json_object(std::move(body)));
}

}  // namespace buzz::server
