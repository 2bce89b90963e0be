// Negentropy protocol v1; see negentropy.h.
#include "engine/negentropy.h"

#include <algorithm>
#include <unordered_set>

#include "engine/canonical.h"

namespace buzz::engine::negentropy {
namespace {

enum Mode : uint64_t { kSkip = 0, kFingerprint = 1, kIdList = 2 };
constexpr size_t kBuckets = 16;
constexpr size_t kBlock = 64;  // items between kept sums (ItemSet)

// The shortest bound that sorts above `prev` and not above `curr` (prev < curr).
Bound minimal_bound(const Item& prev, const Item& curr) {
  Bound b;
  b.item.created_at = curr.created_at;
  if (prev.created_at != curr.created_at) return b;
  size_t shared = 0;
  while (shared < 32 && prev.id[shared] == curr.id[shared]) ++shared;
  b.prefix_len = std::min<size_t>(shared + 1, 32);
  std::copy_n(curr.id.begin(), b.prefix_len, b.item.id.begin());
  return b;
}

Bound infinity_bound() {
  Bound b;
  b.item.created_at = kInfinity;
  return b;
}

}  // namespace

void Accumulator::add(const Id& id) {
  unsigned carry = 0;
  for (size_t limb = 0; limb < 4; ++limb) {
    uint64_t v = 0;
    for (size_t b = 0; b < 8; ++b) v |= uint64_t(id[limb * 8 + b]) << (8 * b);
    unsigned __int128 s = (unsigned __int128)sum_[limb] + v + carry;
    sum_[limb] = uint64_t(s);
    carry = unsigned(s >> 64);
  }
}

void Accumulator::add(const Accumulator& other) {
  unsigned carry = 0;
  for (size_t limb = 0; limb < 4; ++limb) {
    unsigned __int128 s = (unsigned __int128)sum_[limb] + other.sum_[limb] + carry;
    sum_[limb] = uint64_t(s);
    carry = unsigned(s >> 64);
  }
}

void Accumulator::subtract(const Accumulator& other) {
  unsigned borrow = 0;
  for (size_t limb = 0; limb < 4; ++limb) {
    const uint64_t a = sum_[limb], b = other.sum_[limb];
    sum_[limb] = a - b - borrow;
    borrow = (a < b || (a == b && borrow)) ? 1 : 0;
  }
}

Fingerprint Accumulator::fingerprint(uint64_t count) const {
  std::string input;
  input.reserve(42);
  for (uint64_t limb : sum_) {
    for (size_t b = 0; b < 8; ++b) input.push_back(char(uint8_t(limb >> (8 * b))));
  }
  put_varint(input, count);
  uint8_t hash[32];
  sha256(input.data(), input.size(), hash);
  Fingerprint out;
  std::copy_n(hash, kFingerprintBytes, out.begin());
  return out;
}

void put_varint(std::string& out, uint64_t n) {
  char digits[10];
  size_t len = 0;
  do {
    digits[len++] = char(n & 0x7f);
    n >>= 7;
  } while (n != 0);
  while (len > 0) {
    --len;
    out.push_back(char(digits[len] | (len > 0 ? 0x80 : 0)));
  }
}

bool get_varint(std::string_view in, size_t& pos, uint64_t& n) {
  n = 0;
  while (pos < in.size()) {
    const uint8_t byte = uint8_t(in[pos++]);
    if (n >> 57) return false;  // another 7 bits would not fit
    n = n << 7 | (byte & 0x7f);
    if (!(byte & 0x80)) return true;
  }
  return false;
}

ItemSet::ItemSet(std::vector<Item> items) : items_(std::move(items)) {
  std::sort(items_.begin(), items_.end());
  items_.erase(std::unique(items_.begin(), items_.end()), items_.end());
  block_sums_.reserve(items_.size() / kBlock + 1);
  Accumulator running;
  for (size_t i = 0; i < items_.size(); ++i) {
    if (i % kBlock == 0) block_sums_.push_back(running);
    running.add(items_[i].id);
  }
  if (items_.size() % kBlock == 0) block_sums_.push_back(running);
}

Accumulator ItemSet::sum_before(size_t end) const {
  Accumulator acc = block_sums_[end / kBlock];
  for (size_t i = end / kBlock * kBlock; i < end; ++i) acc.add(items_[i].id);
  return acc;
}

Fingerprint ItemSet::fingerprint(size_t begin, size_t end) const {
  Accumulator acc = sum_before(end);
  acc.subtract(sum_before(begin));
  return acc.fingerprint(end - begin);
}

size_t ItemSet::lower_bound(size_t begin, size_t end, const Item& bound) const {
  return size_t(std::lower_bound(items_.begin() + begin, items_.begin() + end, bound) - items_.begin());
}

void Reconciler::put_bound(std::string& out, const Bound& bound) {
  const uint64_t ts = bound.item.created_at;
  if (ts == kInfinity) {
    last_out_ = kInfinity;
    put_varint(out, 0);
  } else {
    put_varint(out, ts - last_out_ + 1);
    last_out_ = ts;
  }
  put_varint(out, bound.prefix_len);
  out.append(reinterpret_cast<const char*>(bound.item.id.data()), bound.prefix_len);
}

bool Reconciler::get_bound(std::string_view in, size_t& pos, Bound& bound) {
  uint64_t encoded = 0, len = 0;
  if (!get_varint(in, pos, encoded)) return false;
  uint64_t ts = encoded == 0 ? kInfinity : encoded - 1;
  // Deltas that run past the largest timestamp mean infinity, like the reference.
  if (last_in_ == kInfinity || ts == kInfinity || ts > kInfinity - 1 - last_in_) ts = kInfinity;
  else ts += last_in_;
  last_in_ = ts;
  if (!get_varint(in, pos, len) || len > 32 || len > in.size() - pos) return false;
  bound = Bound{};
  bound.item.created_at = ts;
  bound.prefix_len = size_t(len);
  std::copy_n(in.data() + pos, len, bound.item.id.begin());
  pos += len;
  return true;
}

void Reconciler::split_range(size_t lower, size_t upper, const Bound& upper_bound, std::string& out) {
  const size_t n = upper - lower;
  if (n < kBuckets * 2) {
    put_bound(out, upper_bound);
    put_varint(out, kIdList);
    put_varint(out, n);
    for (size_t i = lower; i < upper; ++i) out.append(reinterpret_cast<const char*>(set_[i].id.data()), 32);
    return;
  }
  const size_t per_bucket = n / kBuckets, with_extra = n % kBuckets;
  size_t curr = lower;
  for (size_t b = 0; b < kBuckets; ++b) {
    const size_t size = per_bucket + (b < with_extra ? 1 : 0);
    const Fingerprint fp = set_.fingerprint(curr, curr + size);
    curr += size;
    put_bound(out, curr == upper ? upper_bound : minimal_bound(set_[curr - 1], set_[curr]));
    put_varint(out, kFingerprint);
    out.append(reinterpret_cast<const char*>(fp.data()), fp.size());
  }
}

std::string Reconciler::initiate() {
  initiator_ = true;
  last_out_ = 0;
  std::string out(1, char(kProtocolVersion));
  split_range(0, set_.size(), infinity_bound(), out);
  return out;
}

Result<Outcome> Reconciler::reconcile(std::string_view in) {
  last_in_ = last_out_ = 0;
  Outcome result;
  std::string& full = result.next;
  full.push_back(char(kProtocolVersion));
  if (in.empty()) return Error{"empty message"};
  const uint8_t version = uint8_t(in[0]);
  if (version < 0x60 || version > 0x6f) return Error{"invalid protocol version byte"};
  if (version != kProtocolVersion) {
    // The answering side names the version it speaks; the initiator cannot go on.
    if (initiator_) return Error{"unsupported protocol version " + std::to_string(version - 0x60)};
    return result;
  }

  const size_t n = set_.size();
  size_t pos = 1, prev_index = 0;
  size_t emitted = 0;  // where the ranges already in `full` end
  Bound prev_bound;
  bool skip = false;
  std::string o;
  while (pos < in.size()) {
    o.clear();
    auto flush_skip = [&] {
      if (!skip) return;
      skip = false;
      put_bound(o, prev_bound);
      put_varint(o, kSkip);
    };
    Bound curr;
    uint64_t mode = 0;
    if (!get_bound(in, pos, curr) || !get_varint(in, pos, mode)) return Error{"parse ends prematurely"};
    const size_t lower = prev_index;
    size_t upper = set_.lower_bound(prev_index, n, curr.item);

    if (mode == kSkip) {
      skip = true;
    } else if (mode == kFingerprint) {
      if (in.size() - pos < kFingerprintBytes) return Error{"parse ends prematurely"};
      const bool same = std::equal(in.begin() + pos, in.begin() + pos + kFingerprintBytes,
                                   set_.fingerprint(lower, upper).begin(),
                                   [](char a, uint8_t b) { return uint8_t(a) == b; });
      pos += kFingerprintBytes;
      if (same) {
        skip = true;
      } else {
        flush_skip();
        split_range(lower, upper, curr, o);
      }
    } else if (mode == kIdList) {
      uint64_t count = 0;
      if (!get_varint(in, pos, count) || count > (in.size() - pos) / 32) return Error{"parse ends prematurely"};
      std::string_view ids = in.substr(pos, count * 32);
      pos += count * 32;
      if (initiator_) {
        skip = true;
        std::unordered_set<Id, KeyBytesHash> theirs;
        for (size_t i = 0; i < count; ++i) {
          Id id;
          std::copy_n(ids.data() + 32 * i, 32, id.begin());
          theirs.insert(id);
        }
        for (size_t i = lower; i < upper; ++i) {
          if (theirs.erase(set_[i].id) == 0) result.have.push_back(set_[i].id);
        }
        result.need.insert(result.need.end(), theirs.begin(), theirs.end());
      } else {
        flush_skip();
        std::string listed;
        size_t listed_count = 0;
        Bound end_bound = curr;
        for (size_t i = lower; i < upper; ++i) {
          if (over_limit(full.size() + o.size() + listed.size())) {
            end_bound = Bound{set_[i], 32};
            upper = i;  // the rest of the range goes back as one fingerprint below
            break;
          }
          listed.append(reinterpret_cast<const char*>(set_[i].id.data()), 32);
          ++listed_count;
        }
        put_bound(o, end_bound);
        put_varint(o, kIdList);
        put_varint(o, listed_count);
        o += listed;
        full += o;  // kept even when it filled the frame
        o.clear();
        emitted = upper;
      }
    } else {
      return Error{"unexpected mode " + std::to_string(mode)};
    }

    if (over_limit(full.size() + o.size())) {
      // Too much for one frame: all after the ranges already written, as one
      // range, for the next round (a pending skip is folded into it).
      const Fingerprint rest = set_.fingerprint(emitted, n);
      put_bound(full, infinity_bound());
      put_varint(full, kFingerprint);
      full.append(reinterpret_cast<const char*>(rest.data()), rest.size());
      break;
    }
    full += o;
    if (!o.empty()) emitted = upper;
    prev_index = upper;
    prev_bound = curr;
  }
  if (initiator_ && full.size() == 1) full.clear();  // nothing left to ask: done
  return result;
}

std::string to_wire(std::string_view binary) {
  return to_hex(reinterpret_cast<const uint8_t*>(binary.data()), binary.size());
}

bool from_wire(std::string_view hex, std::string& binary) {
  if (hex.size() % 2 != 0) return false;
  binary.resize(hex.size() / 2);
  return hex_decode(hex, reinterpret_cast<uint8_t*>(binary.data()), binary.size());
}

}  // namespace buzz::engine::negentropy
