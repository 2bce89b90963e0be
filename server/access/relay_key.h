// The relay's own signing key (NIP-11 `self`): relay-signed events such as
// 13534, 8000 and 8001 must stay verifiable across restarts, so the key comes
// from BUZZ_RELAY_PRIVATE_KEY or else from <data-dir>/relay.key, created once
// with mode 0600 on first use.
#pragma once

#include <string>

#include "engine/result.h"
#include "engine/signature.h"

namespace buzz::server {

engine::Result<engine::Keypair> load_relay_key(const std::string& data_dir, const std::string& configured_hex);

// Reads a hex secret key file, or creates one with a fresh key. `created` tells which.
engine::Result<engine::Keypair> load_or_create_key_file(const std::string& path, bool* created);

}  // namespace buzz::server
