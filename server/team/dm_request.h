// A DM operation (docs/reference/channels.md §6): what a 41010–41012 command or a REST call
// (docs/reference/rest-api.md §3.10) asks of the team model, and what came of it. Both run
// TeamModel::run_dm on the store-writer thread; each surface words a DmStatus
// its own way (dm_commands.cpp: OK reasons; handlers/api_dms.cpp: HTTP).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/hex.h"
#include "engine/kind_numbers.h"

namespace buzz::server {

enum class DmOp : uint8_t { kOpen, kAdd, kHide };  // as kinds 41010, 41011, 41012

// The command kind an operation stands for (audit records name it).
constexpr uint16_t dm_command_kind(DmOp op) { return uint16_t(kind::kOpenDm + uint16_t(op)); }

struct DmRequest {
  DmOp op = DmOp::kOpen;
  engine::Pubkey actor{};
  std::vector<engine::Pubkey> pubkeys;  // kOpen: the others (the actor and repeats are dropped); kAdd: whom to add
  std::string channel;                  // kAdd, kHide: the DM acted on
  std::string command_id;               // the command event's id (hex); empty over REST
};

enum class DmStatus : uint8_t {
  kOk,
  kNoOthers,             // open: nobody besides the actor
  kTooManyOthers,        // open: more than 8 others
  kNotFound,             // no live channel with that id
  kNotDm,
  kNotMember,            // the actor is not one of the DM's participants
  kNoNewParticipant,     // add: everyone named is in the DM already
  kTooManyParticipants,  // add: more than 9 in all
  kBusy,                 // the audit log is backlogged: retry (store writer)
  kFailed,               // the batch did not reach the store (store writer)
};

struct DmOutcome {
  DmStatus status = DmStatus::kOk;
  std::string channel_id;  // kOpen, kAdd: the DM opened or found
  bool created = false;
  std::vector<engine::Pubkey> participants;  // kOpen, kAdd: ascending
};

}  // namespace buzz::server
