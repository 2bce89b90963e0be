// Direct messages (docs/reference/channels.md §6): a DM is a private channel whose identity
// is its participant set. run_dm() holds the rules for both surfaces: the
// command kinds 41010–41012 (stored for idempotency, never fanned out,
// answered with a result in the OK) and the REST calls of docs/reference/rest-api.md §3.10.
#include <algorithm>

#include "engine/canonical.h"
#include "engine/kind_numbers.h"
#include "server/team/team_model.h"

namespace buzz::server {
namespace {

using engine::Pubkey;

constexpr size_t kMaxDmParticipants = 9;

// The p-tagged pubkeys, or the refusal naming the first bad one.
std::optional<std::string> p_keys(const engine::Event& e, std::vector<Pubkey>* out) {
  for (const engine::Tag& t : e.tags) {
    if (t.size() < 2 || t[0] != "p") continue;
    if (t[1].find_first_not_of("0123456789abcdefABCDEF") != std::string::npos || t[1].size() % 2) {
      return "invalid: bad pubkey hex: " + t[1];
    }
    Pubkey pk;
    if (t[1].size() != 64 || !engine::from_hex_any_case(t[1], pk.data(), 32)) return "invalid: pubkey must be 32 bytes: " + t[1];
    out->push_back(pk);
  }
  return std::nullopt;
}

// Sorts and de-duplicates the set, then hashes it (docs/reference/channels.md §6).
std::string participant_hash(std::vector<Pubkey>& set) {
  std::sort(set.begin(), set.end());
  set.erase(std::unique(set.begin(), set.end()), set.end());
  std::string bytes;
  for (const Pubkey& pk : set) bytes.append(reinterpret_cast<const char*>(pk.data()), 32);
  uint8_t digest[32];
  engine::sha256(bytes.data(), bytes.size(), digest);
  return engine::to_hex(digest, sizeof digest);
}

// The OK reason of each refusal (docs/reference/kinds.md §2.5).
std::string command_refusal(DmStatus s) {
  switch (s) {
    case DmStatus::kNoOthers: return "invalid: pubkeys must contain at least 1 other participant";
    case DmStatus::kTooManyOthers: return "invalid: pubkeys may contain at most 8 other participants (9 total)";
    case DmStatus::kNotFound: return "invalid: DM not found";
    case DmStatus::kNotDm: return "invalid: channel is not a DM";
    case DmStatus::kNotMember: return "forbidden: not a member of this DM";
    case DmStatus::kNoNewParticipant: return "invalid: must specify at least 1 new participant in p tags";
    case DmStatus::kTooManyParticipants: return "invalid: DM supports at most 9 participants";
    case DmStatus::kOk:
    case DmStatus::kBusy:
    case DmStatus::kFailed: break;
  }
  return "error: internal server error";
}

}  // namespace

Admission TeamModel::open_dm(const AuditCause& cause, std::vector<Pubkey> set, bool announce, uint64_t now,
                             DmOutcome* out) {
  const Pubkey& sender = cause.actor;
  std::string hash = participant_hash(set);
  out->participants = set;
  Admission a;
  if (const engine::Channel* existing = team_.dm_by_hash(hash)) {
    out->channel_id = existing->id;
    out->created = false;
    // Every participant has had a row since the DM was made, and DM membership never changes.
    engine::ChannelMember m = *team_.member(existing->id, sender);
    if (m.hidden_at) {
      m.hidden_at = 0;
      a.state.push_back(team_.put_member(existing->id, m));
    }
    emit_dm_visibility(a, sender, now);
    return a;
  }
  engine::Channel ch;
  ch.id = engine::random_uuid();
  ch.name = set.size() == 2 ? "DM" : "Group DM (" + std::to_string(set.size()) + ")";
  ch.type = engine::ChannelType::kDm;
  ch.visibility = engine::Visibility::kPrivate;
  ch.created_by = sender;
  ch.created_at = now;
  ch.participant_hash = hash;
  a.state.push_back(team_.put_channel(ch));
  audit(a, cause, engine::kActionChannelCreated, ch.id,
        {{"channel_type", json_string("dm")}, {"name", json_string(ch.name)}, {"visibility", json_string("private")}});
  std::string participants = "[";
  for (const Pubkey& pk : set) {
    add_member(a, ch.id, pk, engine::ChannelRole::kMember, sender, now);
    audit(a, cause, engine::kActionMemberAdded, ch.id,
          {{"role", json_string("member")}, {"target", json_string(engine::to_hex(pk))}});
    if (participants.size() > 1) participants += ',';
    participants += json_string(engine::to_hex(pk));
  }
  if (announce) {
    emit_system(a, ch.id, {{"actor", json_string(engine::to_hex(sender))}, {"participants", participants + "]"},
                           {"type", json_string("dm_created")}}, now);
  }
  emit_group_state(a, ch, now);
  for (const Pubkey& pk : set) emit_notice(a, kind::kMemberAddedNotification, pk, ch.id, sender, now);
  emit_dm_created(a, ch, sender, now);
  out->channel_id = ch.id;
  out->created = true;
  return a;
}

Admission TeamModel::run_dm(const DmRequest& r, uint64_t now, DmOutcome* out) {
  const AuditCause cause{r.command_id, dm_command_kind(r.op), r.actor};
  auto refuse = [&](DmStatus status) {
    out->status = status;
    return Admission::refused({});
  };
  if (r.op == DmOp::kOpen) {
    std::vector<Pubkey> others = r.pubkeys;
    std::erase(others, r.actor);
    std::sort(others.begin(), others.end());
    others.erase(std::unique(others.begin(), others.end()), others.end());
    if (others.empty()) return refuse(DmStatus::kNoOthers);
    if (others.size() > kMaxDmParticipants - 1) return refuse(DmStatus::kTooManyOthers);
    others.push_back(r.actor);
    return open_dm(cause, std::move(others), /*announce=*/true, now, out);
  }

  const engine::Channel* dm = team_.channel(r.channel);
  if (!dm || dm->deleted()) return refuse(DmStatus::kNotFound);
  if (dm->type != engine::ChannelType::kDm) return refuse(DmStatus::kNotDm);
  const engine::ChannelMember* self = team_.member(dm->id, r.actor);
  if (!self || !self->active()) return refuse(DmStatus::kNotMember);

  if (r.op == DmOp::kHide) {
    Admission a;
    engine::ChannelMember m = *self;
    if (!m.hidden_at) {
      m.hidden_at = now;
      a.state.push_back(team_.put_member(dm->id, m));
    }
    emit_dm_visibility(a, r.actor, now);
    out->channel_id = dm->id;
    return a;
  }
  // kAdd: participant sets never change; existing ∪ new is a different DM.
  std::vector<Pubkey> set;
  for (const engine::ChannelMember* m : team_.active_members(dm->id)) set.push_back(m->pubkey);
  const size_t before = set.size();
  for (const Pubkey& pk : r.pubkeys) {
    if (std::find(set.begin(), set.end(), pk) == set.end()) set.push_back(pk);
  }
  if (set.size() == before) return refuse(DmStatus::kNoNewParticipant);
  if (set.size() > kMaxDmParticipants) return refuse(DmStatus::kTooManyParticipants);
  return open_dm(cause, std::move(set), /*announce=*/false, now, out);
}

Admission TeamModel::dm_command(const engine::Event& e, uint64_t now) {
  DmRequest r;
  r.op = DmOp(e.kind - kind::kOpenDm);
  r.actor = e.pubkey;
  r.command_id = e.id_hex();
  if (r.op != DmOp::kOpen) {
    std::string_view h = e.first_tag_value("h");
    if (h.empty()) return Admission::refused("invalid: missing h tag (channel_id)");
    if (!engine::is_canonical_uuid(h)) return Admission::refused("invalid: bad channel_id format");
    r.channel = h;
  }
  if (r.op != DmOp::kHide) {
    if (auto bad = p_keys(e, &r.pubkeys)) return Admission::refused(*bad);
  }
  DmOutcome out;
  Admission a = run_dm(r, now, &out);
  if (out.status != DmStatus::kOk) return Admission::refused(command_refusal(out.status));
  a.fanout = false;
  switch (r.op) {
    case DmOp::kOpen:
      // Stored in the DM itself rather than globally, so only its participants
      // can read who opened a DM with whom.
      a.channel = out.channel_id;
      a.reason = "response:" + json_object({{"channel_id", json_string(out.channel_id)},
                                            {"created", out.created ? "true" : "false"}});
      break;
    case DmOp::kAdd:
      a.channel = r.channel;
      a.reason = "response:" + json_object({{"channel_id", json_string(out.channel_id)}});
      break;
    case DmOp::kHide:
      a.channel = r.channel;
      a.reason = "{}";  // the exact upstream reason for a hide (docs/reference/protocol.md §4)
      break;
  }
  return a;
}

}  // namespace buzz::server
