// MemoryPresenceStore: the embedded build's PresenceStore (engine/presence_store.h),
// held in memory only and never written to disk (docs/reference/protocol.md §12).
//
// Threads: every method may be called from any loop thread.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/hex.h"
#include "engine/presence_store.h"

namespace buzz::server {

using engine::kMaxPresenceStatusBytes;
using engine::kPresenceTtlSecs;
using engine::kTypingWindowSecs;
using engine::PresenceStore;

class MemoryPresenceStore final : public PresenceStore {
 public:
  void set_status(const engine::Pubkey& pk, std::string_view status, uint64_t now) override;
  bool clear(const engine::Pubkey& pk, uint64_t now) override;
  std::optional<std::string> status(const engine::Pubkey& pk, uint64_t now) const override;
  std::vector<engine::Pubkey> expire(uint64_t now) override;
  void set_guest_channels(const engine::Pubkey& pk, std::vector<std::string> channels, uint64_t now) override;
  std::vector<std::string> guest_channels(const engine::Pubkey& pk, uint64_t now) const override;
  void set_typing(std::string_view channel, const engine::Pubkey& pk, uint64_t now) override;
  std::vector<engine::Pubkey> typing(std::string_view channel, uint64_t now) const override;

 private:
  struct Status {
    std::string text;
    uint64_t expires_at;
  };
  mutable std::mutex mu_;
  std::unordered_map<engine::Pubkey, Status, engine::KeyBytesHash> status_;
  struct GuestChannels {
    std::vector<std::string> channels;
    uint64_t kept_until;
  };
  // Proxy guests' channels; expire() drops those kept past kGuestChannelsSecs.
  std::unordered_map<engine::Pubkey, GuestChannels, engine::KeyBytesHash> guests_;
  // channel -> (pubkey -> last typing time); stale entries are dropped as the channel is touched.
  std::unordered_map<std::string, std::unordered_map<engine::Pubkey, uint64_t, engine::KeyBytesHash>> typing_;
};

// The status a kind-20001 content carries: a bare string, or legacy {"status": "…"}; cut to 128 bytes.
std::string presence_status(std::string_view content);

}  // namespace buzz::server
