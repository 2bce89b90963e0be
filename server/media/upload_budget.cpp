// Upload bytes in flight, relay-wide and per pubkey; see upload_budget.h.
#include "server/media/upload_budget.h"

namespace buzz::server {

struct UploadBudget::Reservation {
  Reservation(UploadBudget& b, const engine::Pubkey& p, uint64_t n) : budget(b), pk(p), bytes(n) {}
  ~Reservation() { budget.release(pk, bytes); }
  UploadBudget& budget;
  const engine::Pubkey pk;
  const uint64_t bytes;
};

std::shared_ptr<const void> UploadBudget::reserve(const engine::Pubkey& pk, uint64_t bytes, Outcome* outcome) {
  {
    std::lock_guard lock(mu_);
    uint64_t& mine = by_pubkey_[pk];
    const bool relay_full = relay_max_ && total_ + bytes > relay_max_;
    const bool pubkey_full = pubkey_max_ && mine + bytes > pubkey_max_;
    if (relay_full || pubkey_full) {
      if (mine == 0) by_pubkey_.erase(pk);
      *outcome = pubkey_full ? Outcome::kPubkeyFull : Outcome::kRelayFull;
      return nullptr;
    }
    mine += bytes;
    total_ += bytes;
  }
  *outcome = Outcome::kReserved;
  return std::make_shared<const Reservation>(*this, pk, bytes);
}

void UploadBudget::release(const engine::Pubkey& pk, uint64_t bytes) {
  std::lock_guard lock(mu_);
  total_ -= bytes;
  auto it = by_pubkey_.find(pk);
  if (it != by_pubkey_.end() && (it->second -= bytes) == 0) by_pubkey_.erase(it);
}

}  // namespace buzz::server
