// Who may use the proxy (docs/reference/proxy.md §3): registered guests (a pubkey and its
// channel UUIDs) and invite tokens (channels, an expiry, a number of uses).
// Everything lives in memory and is lost on restart. Loop thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/result.h"

namespace buzz::proxy {

struct Invite {
  std::vector<std::string> channels;
  uint64_t expires_at = 0;  // unix seconds
  uint32_t max_uses = 0, uses = 0;
};

class GuestBook {
 public:
  // Registers (or re-registers, replacing the channel list) a guest.
  void add_guest(const std::string& pubkey, std::vector<std::string> channels);
  bool remove_guest(const std::string& pubkey);
  const std::vector<std::string>* guest_channels(const std::string& pubkey) const;
  const std::map<std::string, std::vector<std::string>>& guests() const { return guests_; }

  // A new token, "buzz_invite_" + 32 hex.
  std::string create_invite(std::vector<std::string> channels, uint64_t expires_at, uint32_t max_uses);
  // Checks and consumes one use; the error is "invite token not found" /
  // "… expired" / "… exhausted".
  engine::Result<std::vector<std::string>> redeem(const std::string& token, uint64_t now);

 private:
  std::map<std::string, std::vector<std::string>> guests_;  // pubkey (lowercase hex) → channels
  std::map<std::string, Invite> invites_;
};

// The valid UUIDs of a comma-separated list, lowercased (invalid entries are skipped).
std::vector<std::string> parse_channel_list_csv(std::string_view csv);

}  // namespace buzz::proxy
