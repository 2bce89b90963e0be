// API tokens (§B.2, §B.3): `auth` mints one by signing, the others manage
// the caller's tokens over REST.
#include "tools/cli/command.h"
#include "tools/cli/session.h"
#include "tools/cli/token_mint.h"
#include "tools/cli/validate.h"

namespace buzz::cli {
namespace {

std::string auth(Session& s, const Args&) {
  return mint_token(s.http(), s.relay(), s.key(), {"buzz-cli", 7, "token mint failed"}).token;
}

std::string list_tokens(Session& s, const Args&) { return s.request("GET", "/api/tokens"); }
std::string delete_token(Session& s, const Args& a) { return s.request("DELETE", "/api/tokens/" + checked_uuid(a.value("id"))); }
std::string delete_all_tokens(Session& s, const Args&) { return s.request("DELETE", "/api/tokens"); }

}  // namespace

std::vector<Command> token_commands() {
  return {
      {"auth", "Mint a 7-day API token with your private key and print it (export BUZZ_API_TOKEN=$(buzz auth))", {}, auth,
       false},
      {"list-tokens", "List your API tokens", {}, list_tokens},
      {"delete-token", "Revoke one API token", {{"id", Flag::kValue, true, "token UUID"}}, delete_token},
      {"delete-all-tokens", "Revoke all your API tokens", {}, delete_all_tokens},
  };
}

}  // namespace buzz::cli
