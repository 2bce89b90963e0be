// Value: parent[32] | root[32] | depth u64 | reply_count u64 |
// descendant_count u64 | last_reply_at u64 | u8 broadcast | u8 n | pubkey[32]*n
// (big-endian; rows from before participants end after broadcast).
#include "engine/thread_row.h"

#include <algorithm>
#include <cstring>

#include "engine/event_record.h"

namespace buzz::engine {
namespace {

constexpr size_t kThreadRowFixedBytes = 64 + 32 + 1;

}  // namespace

void ThreadRow::add_participant(const Pubkey& author) {
  std::erase(participants, author);
  participants.insert(participants.begin(), author);
  if (participants.size() > kMaxThreadParticipants) participants.resize(kMaxThreadParticipants);
}

std::string ThreadRow::encode() const {
  std::string v(reinterpret_cast<const char*>(parent.data()), 32);
  v.append(reinterpret_cast<const char*>(root.data()), 32);
  for (uint64_t n : {uint64_t(depth), reply_count, descendant_count, last_reply_at}) put_u64(&v, n);
  v.push_back(broadcast ? 1 : 0);
  v.push_back(char(participants.size()));
  for (const Pubkey& pk : participants) v.append(reinterpret_cast<const char*>(pk.data()), 32);
  return v;
}

std::optional<ThreadRow> ThreadRow::decode(std::string_view v) {
  if (v.size() < kThreadRowFixedBytes) return std::nullopt;
  ThreadRow r;
  std::memcpy(r.parent.data(), v.data(), 32);
  std::memcpy(r.root.data(), v.data() + 32, 32);
  r.depth = uint32_t(get_u64(v.data() + 64));
  r.reply_count = get_u64(v.data() + 72);
  r.descendant_count = get_u64(v.data() + 80);
  r.last_reply_at = get_u64(v.data() + 88);
  r.broadcast = v[96] != 0;
  if (v.size() == kThreadRowFixedBytes) return r;
  const size_t n = uint8_t(v[kThreadRowFixedBytes]);
  if (n > kMaxThreadParticipants || v.size() != kThreadRowFixedBytes + 1 + n * 32) return std::nullopt;
  r.participants.resize(n);
  for (size_t i = 0; i < n; ++i) std::memcpy(r.participants[i].data(), v.data() + kThreadRowFixedBytes + 1 + i * 32, 32);
  return r;
}

}  // namespace buzz::engine
