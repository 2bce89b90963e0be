// Negentropy protocol v1; see negentropy.h.
#include "engine/negentropy.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <unordered_set>

#include "engine/canonical.h"

namespace buzz::engine::negentropy {
namespace {

enum Mode : uint64_t { kSkip = 0, kFingerprint = 1, kIdList = 2 };
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

// Puts items in (created_at, id) order. Stores hand them newest first, a run
// per storage family; std::sort given a million-item descending run and a
// short one falls back to heapsort (0.3-0.5 s, a fifth of a NEG-OPEN's build).
// A few such runs are reversed, the ids of each second put in order, and
// merged: linear. Anything else (more than 8 runs) is sorted.
void sort_items(std::vector<Item>& items) {
  std::vector<size_t> starts{0};
  for (size_t i = 1; i < items.size(); ++i) {
    if (items[i].created_at <= items[i - 1].created_at) continue;
    if (starts.size() == 8) {
      std::sort(items.begin(), items.end());
      return;
    }
    starts.push_back(i);
  }
  starts.push_back(items.size());
  for (size_t r = 0; r + 1 < starts.size(); ++r) {
    const auto begin = items.begin() + std::ptrdiff_t(starts[r]), end = items.begin() + std::ptrdiff_t(starts[r + 1]);
    std::reverse(begin, end);
    for (auto second = begin; second != end;) {
      const uint64_t ts = second->created_at;
      const auto next = std::find_if(second, end, [ts](const Item& it) { return it.created_at != ts; });
      std::sort(second, next);
      second = next;
    }
    if (r > 0) std::inplace_merge(items.begin(), begin, end);
  }
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
  sort_items(items_);
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

void Reconciler::put_range(std::string& out, const Range& r) {
  put_bound(out, r.upper_bound);
  if (r.id_list) {
    put_varint(out, kIdList);
    put_varint(out, r.upper - r.lower);
    for (size_t i = r.lower; i < r.upper; ++i) out.append(reinterpret_cast<const char*>(set_[i].id.data()), 32);
  } else {
    put_varint(out, kFingerprint);
    const Fingerprint fp = set_.fingerprint(r.lower, r.upper);
    out.append(reinterpret_cast<const char*>(fp.data()), fp.size());
  }
}

bool Reconciler::read_range(std::string_view in, size_t& pos, Incoming& r) {
  uint64_t encoded = 0, len = 0;
  if (!get_varint(in, pos, encoded)) return false;
  uint64_t ts = encoded == 0 ? kInfinity : encoded - 1;
  // Deltas that run past the largest timestamp mean infinity, like the reference.
  if (last_in_ == kInfinity || ts == kInfinity || ts > kInfinity - 1 - last_in_) ts = kInfinity;
  else ts += last_in_;
  last_in_ = ts;
  if (!get_varint(in, pos, len) || len > 32 || len > in.size() - pos) return false;
  r.lower_bound = r.upper_bound;
  r.upper_bound = Bound{};
  r.upper_bound.item.created_at = ts;
  r.upper_bound.prefix_len = size_t(len);
  std::copy_n(in.data() + pos, len, r.upper_bound.item.id.begin());
  pos += len;
  if (!get_varint(in, pos, r.mode)) return false;
  size_t payload = 0;
  if (r.mode == kFingerprint) {
    payload = kFingerprintBytes;
  } else if (r.mode == kIdList) {
    uint64_t count = 0;
    if (!get_varint(in, pos, count) || count > (in.size() - pos) / 32) return false;
    payload = size_t(count) * 32;
  }
  if (in.size() - pos < payload) return false;
  r.payload = in.substr(pos, payload);
  pos += payload;
  r.lower = r.upper;
  r.upper = set_.lower_bound(r.lower, set_.size(), r.upper_bound.item);
  return true;
}

bool Reconciler::same_fingerprint(const Incoming& r, Tally& tally) const {
  const bool same = std::equal(r.payload.begin(), r.payload.end(), set_.fingerprint(r.lower, r.upper).begin(),
                               [](char a, uint8_t b) { return uint8_t(a) == b; });
  if (r.upper > r.lower) {
    ++tally.ranges;
    tally.items += r.upper - r.lower;
    tally.differing += same ? 0 : 1;
  }
  return same;
}

// If each item differs with probability d, a range of m differs with
// 1 - (1 - d)^m. The ranges compared are the parts of ranges that differed, so
// a few differing parts say little (one part of each always differs); only
// when nearly all differ is the share of differing items clearly high.
void Reconciler::estimate_differing(const Tally& tally) {
  if (tally.ranges < 8) return;  // too few to tell
  const double share = (double(tally.differing) + 0.5) / double(tally.ranges + 1);
  differing_ = share < 0.9 ? 0 : -std::log(1 - share) * double(tally.ranges) / double(tally.items);
}

void Reconciler::split_range(size_t lower, size_t upper, const Bound& lower_bound, const Bound& upper_bound,
                             std::vector<Range>& out) const {
  const size_t n = upper - lower;
  size_t list_at_most = initiator_ ? policy_.initiator_list_at_most : policy_.responder_list_at_most;
  if (differing_ > policy_.list_all_above) {
    // The responder cuts a long list at its frame itself; the initiator's must fit one.
    list_at_most = initiator_ && frame_limit_ != 0 ? (frame_limit_ - std::min<size_t>(frame_limit_, 300)) / 32 : SIZE_MAX;
  }
  if (n <= list_at_most) {
    out.push_back({lower, upper, lower_bound, upper_bound, true});
    return;
  }
  const size_t buckets = std::min(n, n > policy_.wide_above ? policy_.wide_buckets : policy_.narrow_buckets);
  const size_t per_bucket = n / buckets, with_extra = n % buckets;
  size_t curr = lower;
  Bound prev = lower_bound;
  for (size_t b = 0; b < buckets; ++b) {
    const size_t next = b + 1 == buckets ? upper : lower + (b + 1) * per_bucket + std::min(b + 1, with_extra);
    const Bound bound = next == upper ? upper_bound : minimal_bound(set_[next - 1], set_[next]);
    out.push_back({curr, next, prev, bound, false});
    prev = bound;
    curr = next;
  }
}

std::string Reconciler::initiate() {
  initiator_ = true;
  pending_.clear();
  std::vector<Range> first;
  if (set_.size() < policy_.initial_list_below) {
    first.push_back({0, set_.size(), Bound{}, infinity_bound(), true});
  } else {
    split_range(0, set_.size(), Bound{}, infinity_bound(), first);
  }
  pending_.assign(first.begin(), first.end());
  return next_message();
}

Result<Outcome> Reconciler::reconcile(std::string_view in) {
  last_in_ = last_out_ = 0;
  if (in.empty()) return Error{"empty message"};
  const uint8_t version = uint8_t(in[0]);
  if (version < 0x60 || version > 0x6f) return Error{"invalid protocol version byte"};
  if (version != kProtocolVersion) {
    // The answering side names the version it speaks; the initiator cannot go on.
    if (initiator_) return Error{"unsupported protocol version " + std::to_string(version - 0x60)};
    return Outcome{std::string(1, char(kProtocolVersion)), {}, {}};
  }
  return initiator_ ? absorb(in) : respond(in);
}

Result<Outcome> Reconciler::respond(std::string_view in) {
  Outcome result;
  std::string& full = result.next;
  full.push_back(char(kProtocolVersion));
  const size_t n = set_.size();
  size_t pos = 1;
  Incoming r;
  bool skip = false;  // ranges since the last one written need no answer
  Tally tally;
  std::vector<Range> split;
  std::string o;
  while (pos < in.size()) {
    if (!read_range(in, pos, r)) return Error{"parse ends prematurely"};
    if (r.mode > kIdList) return Error{"unexpected mode " + std::to_string(r.mode)};
    const bool skip_before = skip;
    auto flush_skip = [&] {
      if (!skip) return;
      skip = false;
      put_bound(o, r.lower_bound);
      put_varint(o, kSkip);
    };
    o.clear();
    const uint64_t last_out = last_out_;
    bool fold = false;
    size_t fold_from = r.lower;  // where the rest starts if this range does not fit
    split.clear();
    if (r.mode == kSkip || (r.mode == kFingerprint && same_fingerprint(r, tally))) {
      skip = true;
    } else if (r.mode == kFingerprint) {
      flush_skip();
      split_range(r.lower, r.upper, r.lower_bound, r.upper_bound, split);
    } else {
      flush_skip();
      split.push_back({r.lower, r.upper, r.lower_bound, r.upper_bound, true});  // our ids in their list's range
    }
    if (split.size() != 1 || !split[0].id_list) {
      for (const Range& part : split) put_range(o, part);
    } else {
      // A list, as many ids as fit; the rest of the range folds below. A
      // list that never fits must not fold whole: the other side would ask
      // the same range again, forever.
      Range list = split[0];
      const size_t used = full.size() + o.size() + 260;  // the bound, the fold and the margin
      const size_t room = frame_limit_ == 0 ? SIZE_MAX : (frame_limit_ - std::min(frame_limit_, used)) / 32;
      if (list.upper - list.lower > room) {
        fold = true;
        if (room > 0) {
          list.upper = list.lower + room;
          list.upper_bound = Bound{set_[list.upper], 32};
          put_range(o, list);
          full += o;
          fold_from = list.upper;
        }
      } else {
        put_range(o, list);
      }
    }

    if (fold || over_limit(full.size() + o.size())) {
      // Too much for one frame: the rest, from here, as one fingerprint for
      // the next round (what was answered before stays answered).
      if (fold_from == r.lower) {
        last_out_ = last_out;
        if (skip_before) {
          put_bound(full, r.lower_bound);
          put_varint(full, kSkip);
        }
      }
      const Fingerprint rest = set_.fingerprint(fold_from, n);
      put_bound(full, infinity_bound());
      put_varint(full, kFingerprint);
      full.append(reinterpret_cast<const char*>(rest.data()), rest.size());
      break;
    }
    full += o;
  }
  estimate_differing(tally);
  return result;
}

Result<Outcome> Reconciler::absorb(std::string_view in) {
  Outcome result;
  std::vector<Range> fresh, again;
  Tally tally;
  size_t pos = 1, s = 0;
  Incoming r;
  while (pos < in.size()) {
    if (!read_range(in, pos, r)) return Error{"parse ends prematurely"};
    if (r.mode > kIdList) return Error{"unexpected mode " + std::to_string(r.mode)};
    if (r.mode == kSkip) continue;
    // The range we asked about that holds this answer.
    while (s < sent_.size() && !(r.lower_bound.item < sent_[s].upper_bound.item)) ++s;
    const bool held = s < sent_.size() && !(r.lower_bound.item < sent_[s].lower_bound.item) &&
                      !(sent_[s].upper_bound.item < r.upper_bound.item);
    if (!held) {
      // An answer folded at the other side's frame limit: what it did not
      // reach is asked again as it was.
      if (s < sent_.size() && !(sent_[0].lower_bound.item < r.lower_bound.item)) {
        // Not even the first range fitted: ask fewer at a time.
        if (sent_.size() == 1) return Error{"the other side answers no range"};
        max_ranges_ = sent_.size() / 2;
      }
      for (size_t k = s; k < sent_.size(); ++k) {
        Range x = sent_[k];
        if (x.lower_bound.item < r.lower_bound.item) {
          x.lower_bound = r.lower_bound;
          x.lower = r.lower;
        }
        again.push_back(x);
      }
      break;
    }
    if (r.mode == kFingerprint) {
      if (!same_fingerprint(r, tally)) {
        split_range(r.lower, r.upper, r.lower_bound, r.upper_bound, fresh);
      }
    } else {
      std::unordered_set<Id, KeyBytesHash> theirs;
      for (size_t i = 0; i < r.payload.size(); i += 32) {
        Id id;
        std::copy_n(r.payload.data() + i, 32, id.begin());
        theirs.insert(id);
      }
      for (size_t i = r.lower; i < r.upper; ++i) {
        if (theirs.erase(set_[i].id) == 0) result.have.push_back(set_[i].id);
      }
      result.need.insert(result.need.end(), theirs.begin(), theirs.end());
    }
  }
  estimate_differing(tally);
  pending_.insert(pending_.begin(), again.begin(), again.end());
  pending_.insert(pending_.begin(), fresh.begin(), fresh.end());
  result.next = next_message();
  return result;
}

// What the other side's answer to `r` may take, if it splits like ours.
size_t Reconciler::reply_estimate(const Range& r) const {
  const size_t n = r.upper - r.lower;
  if (r.id_list || n <= policy_.responder_list_at_most) return 40 + 32 * (n + 1);
  return 24 * std::min(n, n > policy_.wide_above ? policy_.wide_buckets : policy_.narrow_buckets);
}

// The initiator's next message: the pending ranges that fit, in order, with
// skips between; empty when nothing is left to ask.
std::string Reconciler::next_message() {
  std::string out(1, char(kProtocolVersion));
  last_out_ = 0;
  sent_.clear();
  size_t answer = 1;
  Item at{};  // where the message so far ends
  std::string piece;
  while (!pending_.empty() && sent_.size() < max_ranges_) {
    const Range& r = pending_.front();
    const uint64_t last_out = last_out_;
    piece.clear();
    if (at < r.lower_bound.item) {
      put_bound(piece, r.lower_bound);
      put_varint(piece, kSkip);
    }
    put_range(piece, r);
    const size_t reply = reply_estimate(r);
    if (!sent_.empty() && (over_limit(out.size() + piece.size()) || over_limit(answer + reply))) {
      last_out_ = last_out;
      break;
    }
    out += piece;
    answer += reply;
    at = r.upper_bound.item;
    sent_.push_back(r);
    pending_.pop_front();
  }
  if (sent_.empty()) out.clear();  // nothing left to ask: done
  return out;
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
