// Connections per address not yet vouched for; see address_counts.h.
#include "net/address_counts.h"

namespace buzz::net {

bool AddressCounts::try_add(uint32_t addr) {
  std::lock_guard lock(mu_);
  uint32_t& n = counts_[addr];
  if (n >= max_) {
    if (n == 0) counts_.erase(addr);
    return false;
  }
  ++n;
  return true;
}

void AddressCounts::remove(uint32_t addr) {
  std::lock_guard lock(mu_);
  auto it = counts_.find(addr);
  if (it != counts_.end() && --it->second == 0) counts_.erase(it);
}

}  // namespace buzz::net
