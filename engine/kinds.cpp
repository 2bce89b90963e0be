// The kind table; see kinds.h. Rows come from docs/reference/kinds.md, sorted by kind.
#include "engine/kinds.h"

#include <algorithm>
#include <array>

namespace buzz::engine {
namespace {

using enum Sender;
using enum ChannelRule;
using enum KindRole;

constexpr auto kKinds = std::to_array<KindInfo>({
    {0, "profile", kClient, kGlobal, kPlain, "users:write"},
    {1, "text note", kClient, kGlobal, kPlain, "messages:write"},
    {3, "contact list", kClient, kGlobal, kPlain, "users:write"},
    {5, "deletion", kClient, kTarget, kPlain, "messages:write"},
    {7, "reaction", kClient, kTarget, kPlain, "messages:write"},
    {9, "stream message", kClient, kRequired, kPlain, "messages:write"},
    {1059, "gift wrap", kClient, kGlobal, kPlain, "messages:write"},
    {8000, "relay member added", kRelay, kGlobal, kPlain, ""},
    {8001, "relay member removed", kRelay, kGlobal, kPlain, ""},
    {9000, "put user", kClient, kRequired, kNip29Admin, "admin:channels"},
    {9001, "remove user", kClient, kRequired, kNip29Admin, "admin:channels"},
    {9002, "edit metadata", kClient, kRequired, kNip29Admin, "channels:write"},
    {9005, "delete event", kClient, kRequired, kNip29Admin, "messages:write"},
    {9007, "create group", kClient, kOptional, kNip29Admin, "channels:write"},
    {9008, "delete group", kClient, kRequired, kNip29Admin, "admin:channels"},
    {9021, "join request", kClient, kRequired, kNip29Admin, "channels:read"},
    {9022, "leave request", kClient, kRequired, kNip29Admin, "channels:read"},
    {9030, "add relay member", kClient, kGlobal, kRelayAdmin, "admin:users"},
    {9031, "remove relay member", kClient, kGlobal, kRelayAdmin, "admin:users"},
    {9032, "change relay role", kClient, kGlobal, kRelayAdmin, "admin:users"},
    {10000, "mute list", kClient, kGlobal, kPlain, "users:write"},
    {10001, "pin list", kClient, kGlobal, kPlain, "users:write"},
    {10002, "relay list", kClient, kGlobal, kPlain, "users:write"},
    {10003, "bookmark list", kClient, kGlobal, kPlain, "users:write"},
    {10030, "emoji list", kClient, kGlobal, kPlain, "users:write"},
    {10100, "agent profile", kClient, kGlobal, kPlain, "users:write"},
    {13534, "relay membership list", kRelay, kGlobal, kPlain, ""},
    {20001, "presence", kClient, kGlobal, kPlain, "messages:write"},
    {20002, "typing", kClient, kRequired, kPlain, "messages:write"},
    {28936, "leave relay", kClient, kGlobal, kRelayLeave, "channels:read"},
    {30000, "follow set", kClient, kGlobal, kPlain, "users:write"},
    {30003, "bookmark set", kClient, kGlobal, kPlain, "users:write"},
    {30023, "long-form article", kClient, kGlobal, kPlain, "messages:write"},
    {30030, "custom emoji set", kClient, kGlobal, kPlain, "users:write"},
    {30078, "read state", kClient, kGlobal, kPlain, "users:write"},
    {30315, "user status", kClient, kGlobal, kPlain, "users:write"},
    {30620, "workflow definition", kClient, kRequired, kCommand, "messages:write"},
    {30621, "mesh-llm (out of scope)", kRelayOnly, kGlobal, kPlain, ""},
    {30622, "dm visibility", kRelayOnly, kGlobal, kPlain, ""},
    {39000, "group metadata", kRelay, kRequired, kPlain, ""},
    {39001, "group admins", kRelay, kRequired, kPlain, ""},
    {39002, "group members", kRelay, kRequired, kPlain, ""},
    {40002, "stream message v2", kClient, kRequired, kPlain, "messages:write"},
    {40003, "message edit", kClient, kRequired, kPlain, "messages:write"},
    {40004, "message pinned", kClient, kRequired, kPlain, "messages:write"},
    {40005, "message bookmarked", kClient, kRequired, kPlain, "messages:write"},
    {40006, "message scheduled", kClient, kRequired, kPlain, "messages:write"},
    {40007, "reminder", kClient, kRequired, kPlain, "messages:write"},
    {40008, "diff", kClient, kRequired, kPlain, "messages:write"},
    {40099, "system message", kRelay, kRequired, kPlain, ""},
    {40100, "canvas", kClient, kRequired, kPlain, "channels:write"},
    {40901, "relay-only 40901", kRelayOnly, kGlobal, kPlain, ""},
    {40902, "relay-only 40902", kRelayOnly, kGlobal, kPlain, ""},
    {41001, "dm created", kRelay, kGlobal, kPlain, ""},
    {41010, "open dm", kClient, kGlobal, kCommand, "messages:write"},
    {41011, "add dm member", kClient, kRequired, kCommand, "messages:write"},
    {41012, "hide dm", kClient, kRequired, kCommand, "messages:write"},
    {43001, "job request", kClient, kRequired, kPlain, "jobs:write"},
    {43002, "job accepted", kClient, kRequired, kPlain, "jobs:write"},
    {43003, "job progress", kClient, kRequired, kPlain, "jobs:write"},
    {43004, "job result", kClient, kRequired, kPlain, "jobs:write"},
    {43005, "job cancel", kClient, kRequired, kPlain, "jobs:write"},
    {43006, "job error", kClient, kRequired, kPlain, "jobs:write"},
    {44100, "member added notification", kRelay, kGlobal, kPlain, ""},
    {44101, "member removed notification", kRelay, kGlobal, kPlain, ""},
    {45001, "forum post", kClient, kRequired, kPlain, "messages:write"},
    {45002, "forum vote", kClient, kRequired, kPlain, "messages:write"},
    {45003, "forum comment", kClient, kRequired, kPlain, "messages:write"},
    {46001, "workflow triggered", kRelay, kRequired, kPlain, ""},
    {46002, "workflow step started", kRelay, kRequired, kPlain, ""},
    {46003, "workflow step completed", kRelay, kRequired, kPlain, ""},
    {46004, "workflow step failed", kRelay, kRequired, kPlain, ""},
    {46005, "workflow completed", kRelay, kRequired, kPlain, ""},
    {46006, "workflow failed", kRelay, kRequired, kPlain, ""},
    {46007, "workflow cancelled", kRelay, kRequired, kPlain, ""},
    {46010, "approval requested", kRelay, kRequired, kPlain, ""},
    {46011, "approval granted", kRelay, kRequired, kPlain, ""},
    {46012, "approval denied", kRelay, kRequired, kPlain, ""},
    {46020, "trigger workflow", kClient, kGlobal, kCommand, "messages:write"},
    {46030, "grant approval", kClient, kGlobal, kCommand, "messages:write"},
    {46031, "deny approval", kClient, kGlobal, kCommand, "messages:write"},
    {48100, "huddle started", kClient, kRequired, kPlain, "channels:write"},
    {48101, "huddle participant joined", kRelay, kRequired, kPlain, ""},
    {48102, "huddle participant left", kRelay, kRequired, kPlain, ""},
    {48103, "huddle ended", kClient, kRequired, kPlain, "channels:write"},
    {48106, "huddle guidelines", kClient, kRequired, kPlain, "channels:write"},
    {48110, "huddle recording started", kRelay, kRequired, kPlain, ""},
    {48111, "huddle recording", kRelay, kRequired, kPlain, ""},
    {48112, "huddle track segment", kRelay, kRequired, kPlain, ""},
});

constexpr bool sorted_by_kind() {
  for (size_t i = 1; i < kKinds.size(); ++i) {
    if (kKinds[i - 1].kind >= kKinds[i].kind) return false;
  }
  return true;
}
static_assert(sorted_by_kind(), "kKinds must stay sorted by kind for binary search");

}  // namespace

const KindInfo* find_kind(uint16_t kind) {
  auto it = std::lower_bound(kKinds.begin(), kKinds.end(), kind,
                             [](const KindInfo& k, uint16_t v) { return k.kind < v; });
  return it != kKinds.end() && it->kind == kind ? &*it : nullptr;
}

std::span<const KindInfo> all_kinds() { return kKinds; }

std::string_view kind_class_name(KindClass c) {
  switch (c) {
    case KindClass::kRegular: return "regular";
    case KindClass::kReplaceable: return "replaceable";
    case KindClass::kAddressable: return "addressable";
    case KindClass::kEphemeral: return "ephemeral";
  }
  return "?";
}

}  // namespace buzz::engine
