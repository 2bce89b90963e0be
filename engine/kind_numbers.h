// Kind numbers by name (docs/reference/kinds.md). Code says `kind::kPutUser`, never 9000:
// a reader greps one name, and the registry's table in kinds.cpp is built from the same
// names, so a number cannot mean one thing here and another there.
#pragma once

#include <cstdint>

namespace buzz::kind {

// NIP-01 and friends.
inline constexpr uint16_t kProfile = 0;
inline constexpr uint16_t kTextNote = 1;
inline constexpr uint16_t kContactList = 3;
inline constexpr uint16_t kDeletion = 5;
inline constexpr uint16_t kReaction = 7;
inline constexpr uint16_t kStreamMessage = 9;
inline constexpr uint16_t kGiftWrap = 1059;

// Relay membership (NIP-43).
inline constexpr uint16_t kRelayMemberAdded = 8000;
inline constexpr uint16_t kRelayMemberRemoved = 8001;
inline constexpr uint16_t kAddRelayMember = 9030;
inline constexpr uint16_t kRemoveRelayMember = 9031;
inline constexpr uint16_t kChangeRelayRole = 9032;
inline constexpr uint16_t kRelayMembershipList = 13534;
inline constexpr uint16_t kLeaveRelay = 28936;

// Channel administration (NIP-29).
inline constexpr uint16_t kPutUser = 9000;
inline constexpr uint16_t kRemoveUser = 9001;
inline constexpr uint16_t kEditMetadata = 9002;
inline constexpr uint16_t kDeleteEvent = 9005;
inline constexpr uint16_t kCreateGroup = 9007;
inline constexpr uint16_t kDeleteGroup = 9008;
inline constexpr uint16_t kJoinRequest = 9021;
inline constexpr uint16_t kLeaveRequest = 9022;
inline constexpr uint16_t kGroupMetadata = 39000;
inline constexpr uint16_t kGroupAdmins = 39001;
inline constexpr uint16_t kGroupMembers = 39002;

// A person's own lists and state.
inline constexpr uint16_t kMuteList = 10000;
inline constexpr uint16_t kPinList = 10001;
inline constexpr uint16_t kRelayList = 10002;
inline constexpr uint16_t kBookmarkList = 10003;
inline constexpr uint16_t kEmojiList = 10030;
inline constexpr uint16_t kAgentProfile = 10100;
inline constexpr uint16_t kFollowSet = 30000;
inline constexpr uint16_t kBookmarkSet = 30003;
inline constexpr uint16_t kLongFormArticle = 30023;
inline constexpr uint16_t kCustomEmojiSet = 30030;
inline constexpr uint16_t kReadState = 30078;
inline constexpr uint16_t kUserStatus = 30315;

// Ephemeral signals, and the signed proofs that are never submitted as EVENT.
inline constexpr uint16_t kPresence = 20001;
inline constexpr uint16_t kTyping = 20002;
inline constexpr uint16_t kAuth = 22242;         // NIP-42
inline constexpr uint16_t kBlossomAuth = 24242;  // media uploads' proof; refused as an EVENT
inline constexpr uint16_t kHttpAuth = 27235;     // NIP-98
// Relay-signed, ephemeral, never stored or fanned out: a NIP-86 change carried to the
// other nodes, and a message's receipt, sent to its author or a channel admin in
// answer to a REQ. No client may send either.
inline constexpr uint16_t kPolicyNotice = 28986;
inline constexpr uint16_t kDeliveryReceipt = 28990;

// Messages and what hangs off them.
inline constexpr uint16_t kStreamMessageV2 = 40002;
inline constexpr uint16_t kMessageEdit = 40003;
inline constexpr uint16_t kMessagePinned = 40004;
inline constexpr uint16_t kMessageBookmarked = 40005;
inline constexpr uint16_t kMessageScheduled = 40006;
inline constexpr uint16_t kReminder = 40007;
inline constexpr uint16_t kDiff = 40008;
inline constexpr uint16_t kSystemMessage = 40099;
inline constexpr uint16_t kCanvas = 40100;
inline constexpr uint16_t kForumPost = 45001;
inline constexpr uint16_t kForumVote = 45002;
inline constexpr uint16_t kForumComment = 45003;

// Direct messages.
inline constexpr uint16_t kDmCreated = 41001;
inline constexpr uint16_t kOpenDm = 41010;
inline constexpr uint16_t kAddDmMember = 41011;
inline constexpr uint16_t kHideDm = 41012;
inline constexpr uint16_t kDmVisibility = 30622;
inline constexpr uint16_t kMemberAddedNotification = 44100;
inline constexpr uint16_t kMemberRemovedNotification = 44101;

// Jobs.
inline constexpr uint16_t kJobRequest = 43001;
inline constexpr uint16_t kJobAccepted = 43002;
inline constexpr uint16_t kJobProgress = 43003;
inline constexpr uint16_t kJobResult = 43004;
inline constexpr uint16_t kJobCancel = 43005;
inline constexpr uint16_t kJobError = 43006;

// Workflows: the definition, the commands, and the relay's reports of a run.
inline constexpr uint16_t kWorkflowDefinition = 30620;
inline constexpr uint16_t kTriggerWorkflow = 46020;
inline constexpr uint16_t kGrantApproval = 46030;
inline constexpr uint16_t kDenyApproval = 46031;
inline constexpr uint16_t kWorkflowTriggered = 46001;
inline constexpr uint16_t kWorkflowStepStarted = 46002;
inline constexpr uint16_t kWorkflowStepCompleted = 46003;
inline constexpr uint16_t kWorkflowStepFailed = 46004;
inline constexpr uint16_t kWorkflowCompleted = 46005;
inline constexpr uint16_t kWorkflowFailed = 46006;
inline constexpr uint16_t kWorkflowCancelled = 46007;
inline constexpr uint16_t kApprovalRequested = 46010;
inline constexpr uint16_t kApprovalGranted = 46011;
inline constexpr uint16_t kApprovalDenied = 46012;

// Huddles.
inline constexpr uint16_t kHuddleStarted = 48100;
inline constexpr uint16_t kHuddleParticipantJoined = 48101;
inline constexpr uint16_t kHuddleParticipantLeft = 48102;
inline constexpr uint16_t kHuddleEnded = 48103;
inline constexpr uint16_t kHuddleGuidelines = 48106;
inline constexpr uint16_t kHuddleRecordingStarted = 48110;  // Buzz's: docs/reference/huddle.md §11.4
inline constexpr uint16_t kHuddleRecording = 48111;
inline constexpr uint16_t kHuddleTrackSegment = 48112;

// Outside clients' kinds that `buzz proxy` translates (NIP-04, NIP-28).
inline constexpr uint16_t kEncryptedDirectMessage = 4;
inline constexpr uint16_t kChannelCreation = 40;
inline constexpr uint16_t kChannelMetadata = 41;
inline constexpr uint16_t kChannelMessage = 42;
inline constexpr uint16_t kHideMessage = 43;
inline constexpr uint16_t kMuteUser = 44;

// Kinds the relay refuses from clients and never emits itself.
inline constexpr uint16_t kMeshLlm = 30621;
inline constexpr uint16_t kChannelSummary = 40901;    // a sidecar, never produced
inline constexpr uint16_t kPresenceSnapshot = 40902;  // answered from 20001 by /query

}  // namespace buzz::kind
