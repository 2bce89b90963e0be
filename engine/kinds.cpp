// The kind table; see kinds.h. Rows come from docs/reference/kinds.md, sorted by kind.
#include "engine/kinds.h"

#include <algorithm>
#include <array>

namespace buzz::engine {
namespace {

using enum Sender;
using enum ChannelRule;
using enum KindRole;
using namespace kind;

constexpr auto kKinds = std::to_array<KindInfo>({
    {kProfile, "profile", kClient, kGlobal, kPlain, "users:write"},
    {kTextNote, "text note", kClient, kGlobal, kPlain, "messages:write"},
    {kContactList, "contact list", kClient, kGlobal, kPlain, "users:write"},
    {kDeletion, "deletion", kClient, kTarget, kPlain, "messages:write"},
    {kReaction, "reaction", kClient, kTarget, kPlain, "messages:write"},
    {kStreamMessage, "stream message", kClient, kRequired, kPlain, "messages:write"},
    {kGiftWrap, "gift wrap", kClient, kGlobal, kPlain, "messages:write"},
    {kRelayMemberAdded, "relay member added", kRelay, kGlobal, kPlain, ""},
    {kRelayMemberRemoved, "relay member removed", kRelay, kGlobal, kPlain, ""},
    {kPutUser, "put user", kClient, kRequired, kNip29Admin, "admin:channels"},
    {kRemoveUser, "remove user", kClient, kRequired, kNip29Admin, "admin:channels"},
    {kEditMetadata, "edit metadata", kClient, kRequired, kNip29Admin, "channels:write"},
    {kDeleteEvent, "delete event", kClient, kRequired, kNip29Admin, "messages:write"},
    {kCreateGroup, "create group", kClient, kOptional, kNip29Admin, "channels:write"},
    {kDeleteGroup, "delete group", kClient, kRequired, kNip29Admin, "admin:channels"},
    {kJoinRequest, "join request", kClient, kRequired, kNip29Admin, "channels:read"},
    {kLeaveRequest, "leave request", kClient, kRequired, kNip29Admin, "channels:read"},
    {kAddRelayMember, "add relay member", kClient, kGlobal, kRelayAdmin, "admin:users"},
    {kRemoveRelayMember, "remove relay member", kClient, kGlobal, kRelayAdmin, "admin:users"},
    {kChangeRelayRole, "change relay role", kClient, kGlobal, kRelayAdmin, "admin:users"},
    {kMuteList, "mute list", kClient, kGlobal, kPlain, "users:write"},
    {kPinList, "pin list", kClient, kGlobal, kPlain, "users:write"},
    {kRelayList, "relay list", kClient, kGlobal, kPlain, "users:write"},
    {kBookmarkList, "bookmark list", kClient, kGlobal, kPlain, "users:write"},
    {kEmojiList, "emoji list", kClient, kGlobal, kPlain, "users:write"},
    {kAgentProfile, "agent profile", kClient, kGlobal, kPlain, "users:write"},
    {kRelayMembershipList, "relay membership list", kRelay, kGlobal, kPlain, ""},
    {kPresence, "presence", kClient, kGlobal, kPlain, "messages:write"},
    {kTyping, "typing", kClient, kRequired, kPlain, "messages:write"},
    {kLeaveRelay, "leave relay", kClient, kGlobal, kRelayLeave, "channels:read"},
    {kDeliveryReceipt, "delivery receipt", kRelay, kGlobal, kPlain, ""},
    {kFollowSet, "follow set", kClient, kGlobal, kPlain, "users:write"},
    {kBookmarkSet, "bookmark set", kClient, kGlobal, kPlain, "users:write"},
    {kLongFormArticle, "long-form article", kClient, kGlobal, kPlain, "messages:write"},
    {kCustomEmojiSet, "custom emoji set", kClient, kGlobal, kPlain, "users:write"},
    {kReadState, "read state", kClient, kGlobal, kPlain, "users:write"},
    {kUserStatus, "user status", kClient, kGlobal, kPlain, "users:write"},
    {kWorkflowDefinition, "workflow definition", kClient, kRequired, kCommand, "messages:write"},
    {kMeshLlm, "mesh-llm (out of scope)", kRelayOnly, kGlobal, kPlain, ""},
    {kDmVisibility, "dm visibility", kRelayOnly, kGlobal, kPlain, ""},
    {kGroupMetadata, "group metadata", kRelay, kRequired, kPlain, ""},
    {kGroupAdmins, "group admins", kRelay, kRequired, kPlain, ""},
    {kGroupMembers, "group members", kRelay, kRequired, kPlain, ""},
    {kStreamMessageV2, "stream message v2", kClient, kRequired, kPlain, "messages:write"},
    {kMessageEdit, "message edit", kClient, kRequired, kPlain, "messages:write"},
    {kMessagePinned, "message pinned", kClient, kRequired, kPlain, "messages:write"},
    {kMessageBookmarked, "message bookmarked", kClient, kRequired, kPlain, "messages:write"},
    {kMessageScheduled, "message scheduled", kClient, kRequired, kPlain, "messages:write"},
    {kReminder, "reminder", kClient, kRequired, kPlain, "messages:write"},
    {kDiff, "diff", kClient, kRequired, kPlain, "messages:write"},
    {kSystemMessage, "system message", kRelay, kRequired, kPlain, ""},
    {kCanvas, "canvas", kClient, kRequired, kPlain, "channels:write"},
    {kChannelSummary, "relay-only 40901", kRelayOnly, kGlobal, kPlain, ""},
    {kPresenceSnapshot, "relay-only 40902", kRelayOnly, kGlobal, kPlain, ""},
    {kDmCreated, "dm created", kRelay, kGlobal, kPlain, ""},
    {kOpenDm, "open dm", kClient, kGlobal, kCommand, "messages:write"},
    {kAddDmMember, "add dm member", kClient, kRequired, kCommand, "messages:write"},
    {kHideDm, "hide dm", kClient, kRequired, kCommand, "messages:write"},
    {kJobRequest, "job request", kClient, kRequired, kPlain, "jobs:write"},
    {kJobAccepted, "job accepted", kClient, kRequired, kPlain, "jobs:write"},
    {kJobProgress, "job progress", kClient, kRequired, kPlain, "jobs:write"},
    {kJobResult, "job result", kClient, kRequired, kPlain, "jobs:write"},
    {kJobCancel, "job cancel", kClient, kRequired, kPlain, "jobs:write"},
    {kJobError, "job error", kClient, kRequired, kPlain, "jobs:write"},
    {kMemberAddedNotification, "member added notification", kRelay, kGlobal, kPlain, ""},
    {kMemberRemovedNotification, "member removed notification", kRelay, kGlobal, kPlain, ""},
    {kForumPost, "forum post", kClient, kRequired, kPlain, "messages:write"},
    {kForumVote, "forum vote", kClient, kRequired, kPlain, "messages:write"},
    {kForumComment, "forum comment", kClient, kRequired, kPlain, "messages:write"},
    {kWorkflowTriggered, "workflow triggered", kRelay, kRequired, kPlain, ""},
    {kWorkflowStepStarted, "workflow step started", kRelay, kRequired, kPlain, ""},
    {kWorkflowStepCompleted, "workflow step completed", kRelay, kRequired, kPlain, ""},
    {kWorkflowStepFailed, "workflow step failed", kRelay, kRequired, kPlain, ""},
    {kWorkflowCompleted, "workflow completed", kRelay, kRequired, kPlain, ""},
    {kWorkflowFailed, "workflow failed", kRelay, kRequired, kPlain, ""},
    {kWorkflowCancelled, "workflow cancelled", kRelay, kRequired, kPlain, ""},
    {kApprovalRequested, "approval requested", kRelay, kRequired, kPlain, ""},
    {kApprovalGranted, "approval granted", kRelay, kRequired, kPlain, ""},
    {kApprovalDenied, "approval denied", kRelay, kRequired, kPlain, ""},
    {kTriggerWorkflow, "trigger workflow", kClient, kGlobal, kCommand, "messages:write"},
    {kGrantApproval, "grant approval", kClient, kGlobal, kCommand, "messages:write"},
    {kDenyApproval, "deny approval", kClient, kGlobal, kCommand, "messages:write"},
    {kHuddleStarted, "huddle started", kClient, kRequired, kPlain, "channels:write"},
    {kHuddleParticipantJoined, "huddle participant joined", kRelay, kRequired, kPlain, ""},
    {kHuddleParticipantLeft, "huddle participant left", kRelay, kRequired, kPlain, ""},
    {kHuddleEnded, "huddle ended", kClient, kRequired, kPlain, "channels:write"},
    {kHuddleGuidelines, "huddle guidelines", kClient, kRequired, kPlain, "channels:write"},
    {kHuddleRecordingStarted, "huddle recording started", kRelay, kRequired, kPlain, ""},
    {kHuddleRecording, "huddle recording", kRelay, kRequired, kPlain, ""},
    {kHuddleTrackSegment, "huddle track segment", kRelay, kRequired, kPlain, ""},
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
