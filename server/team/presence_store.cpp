// The in-process PresenceStore; see presence_store.h.
#include "server/team/presence_store.h"

#include <simdjson.h>

namespace buzz::server {

std::string presence_status(std::string_view content) {
  std::string legacy;  // owns the status read out of {"status": …}: the parser's buffer dies with it
  if (!content.empty() && content.front() == '{') {
    simdjson::dom::parser parser;
    std::string_view status;
    if (!parser.parse(content.data(), content.size()).at_key("status").get(status)) content = legacy = status;
  }
  if (content.size() <= kMaxPresenceStatusBytes) return std::string(content);
  // Cut on a character boundary so the stored status stays valid UTF-8.
  size_t cut = kMaxPresenceStatusBytes;
  while (cut > 0 && (uint8_t(content[cut]) & 0xC0) == 0x80) --cut;
  return std::string(content.substr(0, cut));
}

void MemoryPresenceStore::set_status(const engine::Pubkey& pk, std::string_view status, uint64_t now) {
  std::lock_guard lock(mu_);
  if (status == "offline") {
    status_.erase(pk);
    return;
  }
  status_[pk] = {std::string(status), now + kPresenceTtlSecs};
}

bool MemoryPresenceStore::clear(const engine::Pubkey& pk, uint64_t now) {
  std::lock_guard lock(mu_);
  auto it = status_.find(pk);
  if (it == status_.end()) return false;
  const bool live = it->second.expires_at > now;
  status_.erase(it);
  return live;
}

std::vector<engine::Pubkey> MemoryPresenceStore::expire(uint64_t now) {
  std::lock_guard lock(mu_);
  std::erase_if(guests_, [&](const auto& kv) { return kv.second.kept_until <= now; });
  std::vector<engine::Pubkey> gone;
  std::erase_if(status_, [&](const auto& kv) {
    if (kv.second.expires_at > now) return false;
    gone.push_back(kv.first);
    return true;
  });
  return gone;
}

std::optional<std::string> MemoryPresenceStore::status(const engine::Pubkey& pk, uint64_t now) const {
  std::lock_guard lock(mu_);
  auto it = status_.find(pk);
  if (it == status_.end() || it->second.expires_at <= now) return std::nullopt;
  return it->second.text;
}

void MemoryPresenceStore::set_guest_channels(const engine::Pubkey& pk, std::vector<std::string> channels,
                                             uint64_t now) {
  std::lock_guard lock(mu_);
  guests_[pk] = {std::move(channels), now + engine::kGuestChannelsSecs};
}

std::vector<std::string> MemoryPresenceStore::guest_channels(const engine::Pubkey& pk, uint64_t now) const {
  std::lock_guard lock(mu_);
  auto it = guests_.find(pk);
  if (it == guests_.end() || it->second.kept_until <= now) return {};
  return it->second.channels;
}

void MemoryPresenceStore::set_typing(std::string_view channel, const engine::Pubkey& pk, uint64_t now) {
  std::lock_guard lock(mu_);
  auto& typers = typing_[std::string(channel)];
  std::erase_if(typers, [&](const auto& kv) { return kv.second + kTypingWindowSecs <= now; });
  typers[pk] = now;
}

std::vector<engine::Pubkey> MemoryPresenceStore::typing(std::string_view channel, uint64_t now) const {
  std::lock_guard lock(mu_);
  std::vector<engine::Pubkey> out;
  auto it = typing_.find(std::string(channel));
  if (it == typing_.end()) return out;
  for (const auto& [pk, at] : it->second) {
    if (at + kTypingWindowSecs > now) out.push_back(pk);
  }
  return out;
}

}  // namespace buzz::server
