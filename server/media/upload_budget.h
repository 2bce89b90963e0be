// UploadBudget: the bytes of upload bodies in flight (admitted at their head,
// not yet answered), across the relay and per pubkey (docs/limits.md, "Media
// uploads"). An upload's head reserves its declared length (a chunked body,
// its limit); the reservation rides with the body's file (net::SpoolSpec::hold)
// and is given back when the last reference to the file goes, after its answer.
// Any thread: the loops reserve, whoever drops the file releases.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "engine/hex.h"

namespace buzz::server {

class UploadBudget {
 public:
  // 0 = no bound, for either.
  UploadBudget(uint64_t relay_bytes, uint64_t pubkey_bytes) : relay_max_(relay_bytes), pubkey_max_(pubkey_bytes) {}
  UploadBudget(const UploadBudget&) = delete;
  UploadBudget& operator=(const UploadBudget&) = delete;

  enum class Outcome : uint8_t { kReserved, kRelayFull, kPubkeyFull };
  struct Reservation;
  // `bytes` for pk, held until the returned pointer's last copy goes; null
  // (and why) past either bound. The budget must outlive every reservation.
  std::shared_ptr<const void> reserve(const engine::Pubkey& pk, uint64_t bytes, Outcome* outcome);

  uint64_t relay_max() const { return relay_max_; }
  uint64_t pubkey_max() const { return pubkey_max_; }

 private:
  void release(const engine::Pubkey& pk, uint64_t bytes);

  const uint64_t relay_max_;
  const uint64_t pubkey_max_;
  std::mutex mu_;
  uint64_t total_ = 0;
  std::unordered_map<engine::Pubkey, uint64_t, engine::KeyBytesHash> by_pubkey_;
};

}  // namespace buzz::server
