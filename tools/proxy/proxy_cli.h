// `buzz proxy`: the NIP-28 guest proxy (docs/reference/proxy.md), configured from the
// environment (BUZZ_UPSTREAM_URL, BUZZ_PROXY_SERVER_KEY, BUZZ_PROXY_SALT,
// BUZZ_PROXY_API_TOKEN, BUZZ_RELAY_PUBKEY, …). Runs until SIGINT / SIGTERM.
#pragma once

namespace buzz::proxy {

int run_proxy(int argc, char** argv);

}  // namespace buzz::proxy
