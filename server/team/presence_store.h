// PresenceStore: who is online / away (kind 20001) and who is typing where
// (kind 20002), held in memory only and never written to disk
// (protocol.md §12). The interface lets a clustered build keep the same
// state in Redis (buzz:presence:{hex}) without touching the relay.
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

namespace buzz::server {

inline constexpr uint64_t kPresenceTtlSecs = 90;  // 3 × the clients' 30 s heartbeat
inline constexpr uint64_t kTypingWindowSecs = 5;
inline constexpr size_t kMaxPresenceStatusBytes = 128;

class PresenceStore {
 public:
  virtual ~PresenceStore() = default;
  // "offline" clears the status; anything else is kept for kPresenceTtlSecs.
  virtual void set_status(const engine::Pubkey& pk, std::string_view status, uint64_t now) = 0;
  // Forgets pk's status; true if it held one that had not expired.
  virtual bool clear(const engine::Pubkey& pk, uint64_t now) = 0;
  virtual std::optional<std::string> status(const engine::Pubkey& pk, uint64_t now) const = 0;
  // Forgets every status that has expired by now, and names whose they were.
  virtual std::vector<engine::Pubkey> expire(uint64_t now) = 0;
  virtual void set_typing(std::string_view channel, const engine::Pubkey& pk, uint64_t now) = 0;
  // Pubkeys that typed in the channel within the last kTypingWindowSecs.
  virtual std::vector<engine::Pubkey> typing(std::string_view channel, uint64_t now) const = 0;
};

class MemoryPresenceStore final : public PresenceStore {
 public:
  void set_status(const engine::Pubkey& pk, std::string_view status, uint64_t now) override;
  bool clear(const engine::Pubkey& pk, uint64_t now) override;
  std::optional<std::string> status(const engine::Pubkey& pk, uint64_t now) const override;
  std::vector<engine::Pubkey> expire(uint64_t now) override;
  void set_typing(std::string_view channel, const engine::Pubkey& pk, uint64_t now) override;
  std::vector<engine::Pubkey> typing(std::string_view channel, uint64_t now) const override;

 private:
  struct Status {
    std::string text;
    uint64_t expires_at;
  };
  mutable std::mutex mu_;
  std::unordered_map<engine::Pubkey, Status, engine::KeyBytesHash> status_;
  // channel -> (pubkey -> last typing time); stale entries are dropped as the channel is touched.
  std::unordered_map<std::string, std::unordered_map<engine::Pubkey, uint64_t, engine::KeyBytesHash>> typing_;
};

// The status a kind-20001 content carries: a bare string, or legacy {"status": "…"}; cut to 128 bytes.
std::string presence_status(std::string_view content);

}  // namespace buzz::server
