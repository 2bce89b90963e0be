// Minting an API token with a NIP-98 signed POST /api/tokens (§B.3): the
// auto-mint of a session that has only a private key (1 day, `buzz-cli-auto`)
// and the `auth` command (7 days, `buzz-cli`).
#pragma once

#include <string>

#include "engine/signature.h"
#include "tools/cli/relay_http.h"

namespace buzz::cli {

struct MintRequest {
  const char* name;
  int expires_in_days;
  const char* failure;  // the error's opening words: "auto-mint failed" or "token mint failed"
};

struct MintedToken {
  std::string token, id;
};

// The minted token, or auth_error `<failure> (<status>): <body>`.
MintedToken mint_token(RelayHttp& http, const std::string& relay, const engine::Keypair& key, const MintRequest& request);

}  // namespace buzz::cli
