#include "tools/cli/token_mint.h"

#include "engine/json_text.h"
#include "tools/cli/cli_error.h"
#include "tools/cli/json_read.h"
#include "tools/client/relay_auth.h"

namespace buzz::cli {
namespace {

constexpr const char* kScopes =
    R"(["messages:read","messages:write","channels:read","channels:write","users:read","users:write","files:read","files:write"])";

}  // namespace

MintedToken mint_token(RelayHttp& http, const std::string& relay, const engine::Keypair& key, const MintRequest& request) {
  const std::string body = JsonFields()
                               .string("name", request.name)
                               .json("scopes", kScopes)
                               .number("expires_in_days", request.expires_in_days)
                               .str();
  const std::string url = relay + "/api/tokens";
  const Headers headers = {{"Authorization", client::nip98_authorization(key, url, "POST", body)},
                           {"Content-Type", "application/json"},
                           {"X-Forwarded-Proto", relay.starts_with("https://") ? "https" : "http"}};
  HttpAnswer answer = http.call("POST", url, headers, body);
  std::optional<std::string> token;
  if (answer.status / 100 == 2) token = string_field(answer.body, "token");
  if (!token) {
    throw CliError(Category::kAuth, std::string(request.failure) + " (" + std::to_string(answer.status) + "): " + answer.body);
  }
  return {*token, string_field(answer.body, "id").value_or("")};
}

}  // namespace buzz::cli
