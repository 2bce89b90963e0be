// Services: what the request paths share — the store, the team state and model
// views, the access rules, the rate limits, the read path, the store writer,
// the counters and the attachment rules. One instance, built by the wiring (server/app/serve.cpp) before
// any room and outliving them all; Relay and HttpApi are each handed it.
#pragma once

#include "engine/api_tokens.h"
#include "engine/event_store.h"
#include "engine/imeta.h"
#include "engine/team_state.h"
#include "server/access/gatekeeper.h"
#include "server/access/key_proof.h"
#include "server/access/relay_membership.h"
#include "server/pipeline/relay_stats.h"
#include "server/pipeline/store_writer.h"
#include "server/pipeline/throttle.h"
#include "server/relay/history.h"
#include "server/team/presence_store.h"
#include "server/team/profile_directory.h"

namespace buzz::server {

struct Services {
  engine::EventStore& store;
  engine::TeamState& team;
  RelayMembership& membership;
  PresenceStore& presence;
  engine::ApiTokens& tokens;
  ProfileDirectory& profiles;
  Gatekeeper& gatekeeper;
  KeyProver& prover;  // an HTTP caller's key, and the one NIP-98 replay cache
  Throttle& throttle;
  History& history;
  StoreWriter& writer;
  RelayStats& stats;
  const engine::ImetaChecker& imeta;  // attachments on events must match the media store (docs/reference/media.md §8)
};

}  // namespace buzz::server
