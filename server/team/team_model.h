// TeamModel: the channel rules of docs/reference/channels.md, run on the store-writer
// thread for every event that touches a channel (channel kinds, reactions and
// deletions that inherit a target's channel, NIP-29 administration, DM commands).
//
// admit() decides, before anything is stored, whether the event may be stored,
// in which channel, and what follows from it: the team-state changes (written
// in the same batch), the relay-signed follow-ups (39000–39002, 40099,
// 44100/44101, 41001, 30622) and the live subscriptions to revoke. run_dm()
// decides the same for a DM operation, which a REST call asks without an event.
// Every check that can fail runs first, so a stored admin event always means
// its change was applied (docs/reference/protocol.md §8.2, step 21).
//
// Threads: store-writer thread only. The writer calls end_batch() after each
// batch; a failed batch reloads the team state from the store.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/audit_entry.h"
#include "engine/event.h"
#include "engine/event_store.h"
#include "engine/json_text.h"
#include "engine/signature.h"
#include "engine/team_state.h"
#include "server/team/dm_request.h"
#include "server/team/profile_directory.h"

namespace buzz::server {

// A relay-signed follow-up and the channel it is stored in (empty = global).
struct Emitted {
  engine::Event event;
  std::string channel;
};

// Live channel subscriptions to close with ["CLOSED", sub, reason]. It names
// only those who could read the channel before the change, so the relay may
// tell each that the read rule now refuses that the channel's group state is
// gone for her (docs/reference/kinds.md §4.13): a member, or with no pubkey,
// everyone, which only a channel open until then may name.
struct Revocation {
  std::string channel;
  std::optional<engine::Pubkey> pubkey;  // nullopt: the channel was open; every connection that may no longer read it
  std::string reason;
};

struct Admission {
  bool ok = true;
  std::string reason;      // refusal, or a command's "response:{…}" on success
  std::string channel;     // where the event is stored; empty = global
  bool fanout = true;      // command kinds are stored but never fanned out
  std::vector<engine::Id> deletes;  // targets soft-deleted with the event (9005, 9008)
  std::vector<Emitted> emitted;
  std::vector<engine::StateWrite> state;
  std::vector<Revocation> revoked;
  std::vector<engine::AuditRecord> audit;  // channel / member actions (docs/reference/audit.md §5.2), beside event_created

  static Admission refused(std::string reason) {
    Admission a;
    a.ok = false;
    a.reason = std::move(reason);
    return a;
  }
};

// What caused a team change, as its audit records name it (docs/reference/audit.md §5.2): a
// command event, or a REST call (no event id; the kind of the command it stands for).
struct AuditCause {
  std::string event_id;
  uint16_t kind = 0;
  engine::Pubkey actor{};
};

// A change the team model makes with no client event behind it: a huddle
// adds a member of the parent channel to its private huddle channel, and
// archives the huddle channel when its room ends (docs/reference/huddle.md §5, §8);
// BUZZ_RECONCILE_CHANNELS adopts what was inserted into an original's team
// tables and gives channels their group state (kReconcile).
struct TeamChange {
  enum class Op : uint8_t { kAddMember, kArchive, kReconcile };
  Op op = Op::kAddMember;
  std::string channel;
  engine::Pubkey pubkey{};  // kAddMember: who is added
  std::string parent;       // kAddMember: the parent channel whose member she is
  // kReconcile: channel and member records read from the team tables (kChannels,
  // kChannelMembers; others are ignored). Those the relay knows already stay as they are.
  std::vector<engine::StateWrite> rows{};
};

// Whether `pk` may announce huddle channel `huddle` (a 48100 naming it): an
// active member of it who created it or manages it (owner, admin). Any
// thread; the ingest of a 48100 and each huddle admission ask it
// (docs/access.md, "Rights are checked when acting").
bool may_announce_huddle(const engine::TeamState& team, std::string_view huddle, const engine::Pubkey& pk);

// The channel an event names or inherits (docs/reference/protocol.md §8.2 step 5): kinds 5
// and 7 take their target's, channel kinds their first UUID h tag; empty for
// global events. Any thread.
std::string resolve_channel(const engine::Event& e, engine::EventStore& store);

class TeamModel {
 public:
  // `profiles` answers who may add an agent to a channel (kind 9000).
  // ttl_override: when nonzero, the TTL of every 9007 that carries a ttl tag
  // (BUZZ_EPHEMERAL_TTL_OVERRIDE, a testing aid; docs/reference/channels.md §4.5).
  TeamModel(engine::TeamState& team, engine::EventStore& store, const ProfileDirectory& profiles,
            const engine::Keypair& relay_key, uint32_t ttl_override = 0)
      : team_(team), store_(store), profiles_(profiles), relay_key_(relay_key), ttl_override_(ttl_override) {}

  // Whether admit() has anything to say about this kind (global kinds pass straight through).
  static bool handles(uint16_t kind);
  // proxy: submitted under proxy:submit, which skips the membership check
  // (docs/reference/protocol.md §8.2 step 8); the kinds' own rules still apply.
  Admission admit(const engine::Event& e, uint64_t now, bool proxy = false);
  // A DM operation from a command or a REST call: ok exactly when out->status
  // is kOk (a refusal carries no reason; each surface words the status).
  Admission run_dm(const DmRequest& r, uint64_t now, DmOutcome* out);
  // The TTL reaper: archives every ephemeral channel past its deadline.
  Admission reap(uint64_t now);
  // A TeamChange: refused when the channel is not live (deleted, unknown, or
  // archived for kAddMember), and an add unless the parent's rules admit the
  // pubkey now (an active member of a live parent) and nobody removed it from
  // the huddle channel. An add of an active member and an archive of an
  // archived channel succeed with nothing to do.
  Admission change(const TeamChange& c, uint64_t now);
  // kReconcile: the channels and members among c.rows the relay does not know
  // are added as they are (a member in row order, after those it has); then
  // each channel that gained one, or has no 39000 stored, gets its 39000–39002.
  Admission reconcile(const TeamChange& c, uint64_t now);
  void end_batch(bool committed);
  // Several nodes on one store: re-reads the channels other nodes changed
  // (engine::TeamState::catch_up) and returns the live subscriptions that lost
  // their access by it, as admit() returns this node's own. The writer runs it
  // after each batch that fans out channel events, before they go out.
  std::vector<Revocation> catch_up();

 private:
  // team_model.cpp: the gate and the content kinds
  Admission admit_channel_event(const engine::Event& e, uint64_t now, bool proxy);
  std::optional<std::string> check_content(const engine::Event& e, const engine::Channel& ch, Admission& a);
  // A 48100 names a huddle channel its author may announce.
  std::optional<std::string> check_announcement(const engine::Event& e);
  std::optional<std::string> check_thread(const engine::Event& e, const std::string& channel, Admission& a);
  std::optional<std::string> check_reaction(const engine::Event& e, const engine::Id& target);
  std::optional<std::string> supersede_votes(const engine::Event& e, const engine::Id& target, Admission& a);
  // Who a stored event speaks for: its pubkey, or for a relay-signed one its
  // actor tag, else its first p tag (docs/reference/protocol.md §11).
  engine::Pubkey effective_author(const engine::StoredEvent& stored) const;
  // Who an incoming event acts for: its pubkey, or for a relay-signed one its actor tag.
  engine::Pubkey acting_for(const engine::Event& e) const;
  // Whether `who` may learn that `stored` exists: its author, or one who may
  // read it (its channel's readers; for a p-gated kind, a pubkey its p tags
  // name: the rules of server/access/read_access.h). To anyone else a target
  // answers as a missing one does (docs/access.md, "Unreadable events look absent").
  bool knows_of(const engine::StoredEvent& stored, const engine::Pubkey& who) const;
  // A deleted reply no longer counts toward its parent and root (docs/reference/channels.md §7).
  void lower_thread_counts(const engine::Id& id, Admission& a);
  // channel_admin.cpp: NIP-29 9000–9022
  Admission admin(const engine::Event& e, const engine::Channel* ch, uint64_t now);
  Admission create_channel(const engine::Event& e, uint64_t now);
  Admission put_user(const engine::Event& e, const engine::Channel& ch, uint64_t now);
  Admission remove_user(const engine::Event& e, const engine::Channel& ch, uint64_t now);
  Admission edit_metadata(const engine::Event& e, const engine::Channel& ch, uint64_t now);
  Admission delete_event(const engine::Event& e, const engine::Channel& ch, uint64_t now);
  Admission delete_channel(const engine::Event& e, const engine::Channel& ch, uint64_t now);
  Admission join(const engine::Event& e, const engine::Channel& ch, uint64_t now);
  Admission leave(const engine::Event& e, const engine::Channel& ch, uint64_t now);
  // archived_at = now, then 40099 channel_auto_archived and 39000–39002 (docs/reference/channels.md §5).
  void auto_archive(Admission& a, engine::Channel ch, uint64_t now);
  void add_member(Admission& a, const std::string& channel, const engine::Pubkey& pk, engine::ChannelRole role,
                  const engine::Pubkey& by, uint64_t now);
  void remove_member(Admission& a, const std::string& channel, const engine::Pubkey& pk, const engine::Pubkey& by,
                     uint64_t now);
  // dm_commands.cpp: 41010–41012
  Admission dm_command(const engine::Event& e, uint64_t now);
  // Finds or creates the DM of exactly these participants (the actor included).
  Admission open_dm(const AuditCause& cause, std::vector<engine::Pubkey> participants, bool announce, uint64_t now,
                    DmOutcome* out);
  // team_events.cpp: relay-signed follow-ups (docs/reference/kinds.md §4)
  void emit_group_state(Admission& a, const engine::Channel& ch, uint64_t now);
  void emit_system(Admission& a, const std::string& channel, std::vector<std::pair<std::string, std::string>> fields,
                   uint64_t now);
  void emit_notice(Admission& a, uint16_t kind, const engine::Pubkey& target, const std::string& channel,
                   const engine::Pubkey& actor, uint64_t now);
  void emit_dm_created(Admission& a, const engine::Channel& ch, const engine::Pubkey& creator, uint64_t now);
  void emit_dm_visibility(Admission& a, const engine::Pubkey& viewer, uint64_t now);
  static void audit(Admission& a, const engine::Event& cause, std::string_view action, const std::string& channel,
                    std::vector<std::pair<std::string, std::string>> meta);
  static void audit(Admission& a, const AuditCause& cause, std::string_view action, const std::string& channel,
                    std::vector<std::pair<std::string, std::string>> meta);
  engine::Event sign(uint16_t kind, uint64_t created_at, std::vector<engine::Tag> tags, std::string content = {});
  uint64_t state_time(const std::string& key, uint64_t now);

  engine::TeamState& team_;
  engine::EventStore& store_;
  const ProfileDirectory& profiles_;
  engine::Keypair relay_key_;
  uint32_t ttl_override_;
  // Newest created_at per replaceable relay event, so two updates in one second still replace in order.
  std::unordered_map<std::string, uint64_t> state_times_;
  // This batch's thread rows and reactions, not yet readable from the store.
  std::unordered_map<engine::Id, std::string, engine::KeyBytesHash> batch_threads_;
  std::unordered_set<std::string> batch_reactions_;
};

}  // namespace buzz::server
