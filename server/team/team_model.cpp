// The channel gate and the content kinds; see team_model.h. Check order and
// texts follow docs/reference/protocol.md §8.2 (steps 5–20) and docs/reference/channels.md §7–§9.
#include "server/team/team_model.h"

#include <algorithm>
#include <simdjson.h>

#include <cstring>

#include "engine/event_parse.h"
#include "engine/event_record.h"
#include "engine/kinds.h"
#include "engine/thread_row.h"
#include "server/common/log.h"

namespace buzz::server {
namespace {

using engine::Id;
using engine::ThreadRow;

constexpr uint32_t kMaxThreadDepth = 100;
constexpr size_t kMaxEmojiChars = 64;
constexpr size_t kMaxDiffBytes = 61440;

bool is_dm_command(uint16_t kind) { return kind >= kind::kOpenDm && kind <= kind::kHideDm; }

// The first (or last) e tag holding a 64-hex id.
std::optional<Id> e_target(const engine::Event& e, bool last = false) {
  std::optional<Id> found;
  for (const engine::Tag& t : e.tags) {
    Id id;
    if (t.size() >= 2 && t[0] == "e" && engine::from_hex(t[1], &id)) {
      found = id;
      if (!last) break;
    }
  }
  return found;
}

size_t utf8_chars(std::string_view s) {
  return size_t(std::count_if(s.begin(), s.end(), [](char c) { return (uint8_t(c) & 0xC0) != 0x80; }));
}

bool is_hex(std::string_view s) { return s.find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos; }

}  // namespace

bool TeamModel::handles(uint16_t kind) {
  if (kind == kind::kDeletion || kind == kind::kReaction) return true;
  const engine::KindInfo* info = engine::find_kind(kind);
  return info && (info->role == engine::KindRole::kCommand || info->channel != engine::ChannelRule::kGlobal);
}

void TeamModel::end_batch(bool committed) {
  batch_threads_.clear();
  batch_reactions_.clear();
  // A batch that did not reach the store leaves memory ahead of it: read it back.
  if (committed) return;
  if (auto s = team_.load(store_); !s) log_error("team state reload failed after a failed write", {{"error", s.error()}});
}

std::vector<Revocation> TeamModel::catch_up() {
  struct Before {
    bool open = false;  // readable by everyone: live and not private
    std::vector<engine::Pubkey> members;
  };
  std::unordered_map<std::string, Before> before;
  auto changed = team_.catch_up(store_, [&](const std::string& id) {
    Before& b = before[id];
    const engine::Channel* ch = team_.channel(id);
    b.open = ch && !ch->deleted() && !ch->is_private();
    for (const engine::ChannelMember* m : team_.active_members(id)) b.members.push_back(m->pubkey);
  });
  if (!changed) {
    log_error("team state catch-up failed; the next batch tries again", {{"error", changed.error()}});
    return {};
  }
  std::vector<Revocation> revoked;
  for (const std::string& id : *changed) {
    const Before& b = before[id];
    const engine::Channel* ch = team_.channel(id);
    const bool deleted = !ch || ch->deleted();
    if (b.open && (deleted || ch->is_private())) {
      revoked.push_back({id, std::nullopt, deleted ? "restricted: channel deleted" : "restricted: channel access revoked"});
      continue;
    }
    for (const engine::Pubkey& pk : b.members) {
      if (!team_.can_read(id, pk)) revoked.push_back({id, pk, "restricted: channel access revoked"});
    }
  }
  return revoked;
}

std::string resolve_channel(const engine::Event& e, engine::EventStore& store) {
  const engine::KindInfo* info = engine::find_kind(e.kind);
  if (!info || info->channel == engine::ChannelRule::kGlobal) return {};
  if (info->channel == engine::ChannelRule::kTarget) {
    auto target = e_target(e, /*last=*/e.kind == kind::kReaction);
    auto stored = target ? store.lookup(*target) : std::nullopt;
    return stored ? stored->channel : std::string();
  }
  for (const engine::Tag& t : e.tags) {
    if (t.size() >= 2 && t[0] == "h" && engine::parses_as_uuid(t[1])) return t[1];
  }
  return {};
}

Admission TeamModel::admit(const engine::Event& e, uint64_t now, bool proxy) {
  if (is_dm_command(e.kind)) return dm_command(e, now);
  const engine::KindInfo* info = engine::find_kind(e.kind);
  if (info && info->role == engine::KindRole::kCommand) {
    // The workflow commands run in their own room (CommandRunner) before the
    // writer; one reaches here only on a relay wired without it.
    return Admission::refused("restricted: workflows are not enabled on this relay");
  }
  if (e.kind != kind::kDeletion && e.kind != kind::kReaction) return admit_channel_event(e, now, proxy);
  // Reactions and deletions live in their target's channel (kind 7: the last e
  // tag, which must exist; kind 5: the first, none for an a tag or an unknown target).
  const std::optional<Id> target = e_target(e, /*last=*/e.kind == kind::kReaction);
  const std::optional<engine::StoredEvent> stored = target ? store_.lookup(*target) : std::nullopt;
  if (e.kind == kind::kReaction && !target)
    return Admission::refused("invalid: reaction must reference a target event via e tag");
  // A target the author may not read answers as a missing one: for a deletion, as the store would.
  const bool hidden = stored && !proxy && !knows_of(*stored, acting_for(e));
  if (e.kind == kind::kReaction && (!stored || stored->deleted || hidden))
    return Admission::refused("invalid: reaction target event not found");
  if (hidden) return Admission::refused("invalid: target event not found");
  const std::string channel = stored ? stored->channel : "";
  Admission a;
  if (!channel.empty()) {
    engine::ChannelAccess access = team_.access(channel, e.pubkey);
    if (!(access.can_post() || (proxy && access.exists))) return Admission::refused("restricted: not a channel member");
    if (access.archived) return Admission::refused("invalid: channel is archived");
  }
  if (e.kind == kind::kReaction) {
    if (auto bad = check_reaction(e, *target)) return Admission::refused(*bad);
  } else if (stored && effective_author(*stored) == e.pubkey) {
    // A relay-signed target is its effective author's to delete (docs/reference/protocol.md §11);
    // the store compares raw pubkeys, so the target is cleared for it here.
    if (stored->pubkey != e.pubkey) a.deletes.push_back(*target);
    if (!channel.empty() && !stored->deleted) lower_thread_counts(*target, a);
  }
  a.channel = channel;
  return a;
}

engine::Pubkey TeamModel::effective_author(const engine::StoredEvent& stored) const {
  // A relay-signed message speaks for its actor tag, else its first p tag (docs/reference/channels.md §8).
  engine::Pubkey author = stored.pubkey;
  if (author != relay_key_.pubkey) return author;
  if (auto parsed = engine::parse_event_json(stored.raw)) {
    std::string_view who = parsed->first_tag_value("actor");
    if (who.empty()) who = parsed->first_tag_value("p");
    engine::from_hex(who, &author);
  }
  return author;
}

engine::Pubkey TeamModel::acting_for(const engine::Event& e) const {
  engine::Pubkey actor;
  if (e.pubkey == relay_key_.pubkey && engine::from_hex(e.first_tag_value("actor"), &actor)) return actor;
  return e.pubkey;
}

bool TeamModel::knows_of(const engine::StoredEvent& stored, const engine::Pubkey& who) const {
  if (!stored.channel.empty() ? team_.can_read(stored.channel, who) : !engine::is_p_gated(stored.kind)) return true;
  if (effective_author(stored) == who) return true;
  if (!stored.channel.empty()) return false;
  auto parsed = engine::parse_event_json(stored.raw);
  const std::string hex = engine::to_hex(who);
  return parsed && std::any_of(parsed->tags.begin(), parsed->tags.end(),
                               [&](const engine::Tag& t) { return t.size() >= 2 && t[0] == "p" && t[1] == hex; });
}

Admission TeamModel::admit_channel_event(const engine::Event& e, uint64_t now, bool proxy) {
  // The first h tag whose value parses as a UUID names the channel (docs/reference/channels.md §1).
  std::string_view h;
  for (const engine::Tag& t : e.tags) {
    if (t.size() >= 2 && t[0] == "h" && engine::parses_as_uuid(t[1])) {
      h = t[1];
      break;
    }
  }
  if (e.kind == kind::kCreateGroup) return admin(e, nullptr, now);
  if (h.empty()) {
    return Admission::refused(e.kind == kind::kJoinRequest ? "invalid: missing or invalid h tag"
                                                           : "invalid: channel-scoped events must include an h tag");
  }
  if (!engine::is_canonical_uuid(h)) return Admission::refused("invalid: h tag must be a canonical lowercase UUID");
  const engine::Channel* ch = team_.channel(h);
  const bool live = ch && !ch->deleted();
  const engine::ChannelMember* m = live ? team_.member(h, e.pubkey) : nullptr;
  if (e.kind == kind::kJoinRequest) {
    if (!live) return Admission::refused("invalid: channel not found");
    if (ch->archived()) return Admission::refused("invalid: channel is archived");
    if (ch->is_private()) return Admission::refused("restricted: channel is private");
    return join(e, *ch, now);
  }
  // Open channels admit every relay user; private ones only their members.
  if (!live || (ch->is_private() && !(m && m->active()) && !proxy)) {
    return Admission::refused("restricted: not a channel member");
  }
  const engine::KindInfo* info = engine::find_kind(e.kind);
  if (info && info->role == engine::KindRole::kNip29Admin) return admin(e, ch, now);
  if (ch->archived()) return Admission::refused("invalid: channel is archived");

  Admission a;
  a.channel = ch->id;
  if (auto bad = check_content(e, *ch, a)) return Admission::refused(*bad);
  if (auto bad = check_thread(e, ch->id, a)) return Admission::refused(*bad);
  if (ch->ttl_seconds) {  // every stored channel event pushes an ephemeral channel's deadline
    engine::Channel bumped = *ch;
    bumped.ttl_deadline = now + ch->ttl_seconds;
    a.state.push_back(team_.put_channel(std::move(bumped)));
  }
  if (e.kind == kind::kCanvas) {  // the newest canvas is also kept on the channel for REST readers
    engine::Channel updated = *team_.channel(ch->id);
    updated.canvas = e.content;
    a.state.push_back(team_.put_channel(std::move(updated)));
  }
  return a;
}

bool may_announce_huddle(const engine::TeamState& team, std::string_view huddle, const engine::Pubkey& pk) {
  const engine::ChannelAccess access = team.access(huddle, pk);
  if (!access.exists || !access.role) return false;
  if (engine::is_elevated(*access.role)) return true;
  std::optional<engine::Channel> ch = team.find_channel(huddle);
  return ch && ch->created_by == pk;
}

std::optional<std::string> TeamModel::check_announcement(const engine::Event& e) {
  thread_local simdjson::dom::parser parser;
  std::string_view huddle;
  if (parser.parse(e.content)["ephemeral_channel_id"].get_string().get(huddle)) {
    return "invalid: a huddle announcement must name its channel (ephemeral_channel_id)";
  }
  // Else anyone could name a private channel's id and be let in through her
  // own channel as its parent (docs/reference/huddle.md §5).
  if (!may_announce_huddle(team_, huddle, e.pubkey)) {
    return "restricted: only the huddle channel's creator or its owners and admins may announce it";
  }
  return std::nullopt;
}

std::optional<std::string> TeamModel::check_content(const engine::Event& e, const engine::Channel& ch, Admission& a) {
  if (e.kind == kind::kHuddleStarted) return check_announcement(e);
  if (e.kind == kind::kMessageEdit || e.kind == kind::kForumVote) {
    const bool edit = e.kind == kind::kMessageEdit;
    auto target = e_target(e);
    if (!target) return edit ? "invalid: missing e tag for edit target" : "invalid: missing e tag for vote target";
    auto stored = store_.lookup(*target);
    if (!stored || stored->deleted || (stored->channel != ch.id && !knows_of(*stored, acting_for(e)))) {
      return edit ? "invalid: edit target event not found" : "invalid: vote target event not found";
    }
    if (edit && stored->channel.empty()) return "invalid: target event has no channel";
    if (stored->channel != ch.id) return "invalid: target event belongs to a different channel";
    if (!edit) {
      if (stored->kind != kind::kForumPost && stored->kind != kind::kForumComment)
        return "invalid: vote target must be a forum post or comment";
      return supersede_votes(e, *target, a);
    }
    if (effective_author(*stored) != e.pubkey) return "invalid: must be event author to edit";
    return std::nullopt;
  }
  if (e.kind == kind::kDiff) {
    if (e.content.size() > kMaxDiffBytes) {
      return "invalid: diff content exceeds 60KB limit (got " + std::to_string(e.content.size()) + " bytes)";
    }
    bool repo = false, commit = false;
    for (const engine::Tag& t : e.tags) {
      if (t.size() < 2) continue;
      if (t[0] == "repo") {
        if (!t[1].starts_with("http://") && !t[1].starts_with("https://")) return "invalid: repo URL must be http or https";
        repo = true;
      } else if (t[0] == "commit" || t[0] == "parent-commit") {
        if (t[1].size() < 7 || !is_hex(t[1])) return "invalid: " + t[0] + " SHA must be at least 7 hex characters";
        commit |= t[0] == "commit";
      } else if (t[0] == "branch") {
        if (t.size() < 3 || t[1].empty() || t[2].empty()) return "invalid: branch tag requires both source and target";
      } else if (t[0] == "pr") {
        char* end = nullptr;
        long n = std::strtol(t[1].c_str(), &end, 10);
        if (!end || *end != '\0' || n <= 0) return "invalid: pr number must be a positive integer";
      }
    }
    if (!repo) return "invalid: diff event requires a repo tag";
    if (!commit) return "invalid: diff event requires a commit tag";
  }
  return std::nullopt;
}

std::optional<std::string> TeamModel::supersede_votes(const engine::Event& e, const Id& target, Admission& a) {
  // One live vote per (author, target): a newer vote replaces the older (docs/reference/kinds.md §2.4).
  engine::Filter f;
  f.kinds = std::vector<uint16_t>{kind::kForumVote};
  f.authors = std::vector<engine::Pubkey>{e.pubkey};
  f.tags.push_back({'e', {engine::to_hex(target)}});
  bool newer_exists = false;
  (void)store_.query(f, {}, [&](std::string_view, const engine::EventFields& old) {
    if (old.created_at > e.created_at) {
      newer_exists = true;
      return;
    }
    a.deletes.push_back(engine::id_of(old));
  });
  if (newer_exists) return "duplicate: a newer vote from this author exists";
  return std::nullopt;
}

std::optional<std::string> TeamModel::check_reaction(const engine::Event& e, const Id& target) {
  std::string emoji = e.content.empty() ? "+" : e.content;
  size_t chars = utf8_chars(emoji);
  if (chars > kMaxEmojiChars) return "invalid: reaction emoji exceeds 64 characters (got " + std::to_string(chars) + ")";
  // At most one live reaction per (target, author, emoji) (docs/reference/channels.md §9).
  std::string key = engine::to_hex(target) + e.pubkey_hex() + emoji;
  if (batch_reactions_.count(key)) return "duplicate: reaction already exists";
  engine::Filter f;
  f.kinds = std::vector<uint16_t>{kind::kReaction};
  f.authors = std::vector<engine::Pubkey>{e.pubkey};
  f.tags.push_back({'e', {engine::to_hex(target)}});
  bool exists = false;
  (void)store_.query(f, {}, [&](std::string_view raw, const engine::EventFields&) {
    auto parsed = engine::parse_event_json(raw);
    if (parsed && (parsed->content.empty() ? "+" : parsed->content) == emoji) exists = true;
  });
  if (exists) return "duplicate: reaction already exists";
  batch_reactions_.insert(std::move(key));
  return std::nullopt;
}

std::optional<std::string> TeamModel::check_thread(const engine::Event& e, const std::string& channel, Admission& a) {
  // Only e tags with a marker take part; the last tag with a marker wins.
  std::optional<Id> root, reply;
  for (const engine::Tag& t : e.tags) {
    Id id;
    if (t.size() < 4 || t[0] != "e" || !engine::from_hex(t[1], &id)) continue;
    if (t[3] == "root") root = id;
    if (t[3] == "reply") reply = id;
  }
  if (!root && !reply) return std::nullopt;  // top-level message
  const Id parent = reply ? *reply : *root;  // root only: a direct reply to it
  const Id declared_root = root ? *root : *reply;
  auto stored = store_.lookup(parent);
  if (!stored || stored->deleted || (stored->channel != channel && !knows_of(*stored, acting_for(e)))) {
    return "invalid: reply parent not found";
  }
  if (stored->channel.empty()) return "invalid: parent event has no channel association";
  if (stored->channel != channel) return "invalid: parent event belongs to a different channel";

  auto row = [&](const Id& id) -> ThreadRow {
    auto it = batch_threads_.find(id);
    std::optional<std::string> v = it != batch_threads_.end() ? std::optional(it->second)
                                                              : store_.get_state(engine::StateTable::kThreads,
                                                                                 engine::thread_key(id));
    auto r = v ? ThreadRow::decode(*v) : std::nullopt;
    if (r) return *r;
    ThreadRow top;  // a top-level message gets its row with its first reply
    top.parent = top.root = id;
    return top;
  };
  auto put = [&](const Id& id, const ThreadRow& r) {
    std::string v = r.encode();
    batch_threads_[id] = v;
    a.state.push_back({engine::StateTable::kThreads, std::string(engine::thread_key(id)), std::move(v)});
  };

  ThreadRow parent_row = row(parent);
  ThreadRow mine;
  mine.parent = parent;
  mine.broadcast = e.first_tag_value("broadcast") == "1";
  if (parent_row.depth > 0) {
    if (parent_row.root != declared_root) return "invalid: root tag does not match thread ancestry";
    mine.root = parent_row.root;
    mine.depth = parent_row.depth + 1;
  } else {
    // A top-level parent: its own root marker, else its reply marker, else itself.
    Id parent_root = parent;
    if (auto parsed = engine::parse_event_json(stored->raw)) {
      std::optional<Id> pr, pp;
      for (const engine::Tag& t : parsed->tags) {
        Id id;
        if (t.size() >= 4 && t[0] == "e" && engine::from_hex(t[1], &id)) {
          if (t[3] == "root") pr = id;
          if (t[3] == "reply") pp = id;
        }
      }
      parent_root = pr ? *pr : pp ? *pp : parent;
    }
    if (parent_root != declared_root) return "invalid: root tag does not match thread ancestry";
    mine.root = declared_root;
    mine.depth = parent == declared_root ? 1 : 2;
  }
  if (mine.depth > kMaxThreadDepth) return "invalid: thread depth limit exceeded";
  put(e.id, mine);
  parent_row.reply_count++;
  parent_row.last_reply_at = e.created_at;
  parent_row.add_participant(e.pubkey);
  if (mine.root == parent) parent_row.descendant_count++;
  put(parent, parent_row);
  if (mine.root != parent) {
    ThreadRow root_row = row(mine.root);
    root_row.descendant_count++;
    root_row.last_reply_at = e.created_at;
    root_row.add_participant(e.pubkey);
    put(mine.root, root_row);
  }
  return std::nullopt;
}

void TeamModel::lower_thread_counts(const Id& id, Admission& a) {
  // Deleting a reply lowers its parent's and root's counters, never below 0.
  auto v = store_.get_state(engine::StateTable::kThreads, engine::thread_key(id));
  auto mine = v ? ThreadRow::decode(*v) : std::nullopt;
  if (!mine || mine->depth == 0) return;
  auto adjust = [&](const Id& at, bool reply, bool descendant) {
    std::string key(engine::thread_key(at));
    auto rv = store_.get_state(engine::StateTable::kThreads, key);
    auto r = rv ? ThreadRow::decode(*rv) : std::nullopt;
    if (!r) return;
    if (reply && r->reply_count) r->reply_count--;
    if (descendant && r->descendant_count) r->descendant_count--;
    a.state.push_back({engine::StateTable::kThreads, std::move(key), r->encode()});
  };
  adjust(mine->parent, true, mine->parent == mine->root);
  if (mine->parent != mine->root) adjust(mine->root, false, true);
}

}  // namespace buzz::server
