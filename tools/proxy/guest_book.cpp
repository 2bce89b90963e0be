#include "tools/proxy/guest_book.h"

#include <algorithm>
#include <cctype>

#include "engine/channel.h"
#include "engine/hex.h"
#include "engine/signature.h"

namespace buzz::proxy {

void GuestBook::add_guest(const std::string& pubkey, std::vector<std::string> channels) {
  guests_[pubkey] = std::move(channels);
}

bool GuestBook::remove_guest(const std::string& pubkey) { return guests_.erase(pubkey) > 0; }

const std::vector<std::string>* GuestBook::guest_channels(const std::string& pubkey) const {
  auto it = guests_.find(pubkey);
  return it == guests_.end() ? nullptr : &it->second;
}

std::string GuestBook::create_invite(std::vector<std::string> channels, uint64_t expires_at, uint32_t max_uses) {
  // The "simple" (32 hex) form of a random UUID v4.
  uint8_t b[16];
  engine::random_bytes(b, sizeof b);
  b[6] = uint8_t((b[6] & 0x0f) | 0x40);
  b[8] = uint8_t((b[8] & 0x3f) | 0x80);
  std::string token = "buzz_invite_" + engine::to_hex(b, sizeof b);
  invites_[token] = Invite{std::move(channels), expires_at, max_uses, 0};
  return token;
}

engine::Result<std::vector<std::string>> GuestBook::redeem(const std::string& token, uint64_t now) {
  auto it = invites_.find(token);
  if (it == invites_.end()) return engine::Error{"invite token not found"};
  Invite& inv = it->second;
  if (now >= inv.expires_at) return engine::Error{"invite token expired"};
  if (inv.uses >= inv.max_uses) return engine::Error{"invite token exhausted"};
  ++inv.uses;
  return inv.channels;
}

std::vector<std::string> parse_channel_list_csv(std::string_view csv) {
  std::vector<std::string> out;
  while (!csv.empty()) {
    const size_t comma = csv.find(',');
    std::string_view item = csv.substr(0, comma);
    csv = comma == std::string_view::npos ? std::string_view{} : csv.substr(comma + 1);
    while (!item.empty() && std::isspace(uint8_t(item.front()))) item.remove_prefix(1);
    while (!item.empty() && std::isspace(uint8_t(item.back()))) item.remove_suffix(1);
    std::string lowered(item);
    std::transform(lowered.begin(), lowered.end(), lowered.begin(), [](char c) { return char(std::tolower(uint8_t(c))); });
    if (!engine::is_canonical_uuid(lowered)) continue;
    if (std::find(out.begin(), out.end(), lowered) == out.end()) out.push_back(std::move(lowered));
  }
  return out;
}

}  // namespace buzz::proxy
