// Channel records; see channel.h.
#include "engine/channel.h"

#include <cstring>
#include <ctime>

#include "engine/event_record.h"
#include "engine/signature.h"

namespace buzz::engine {
namespace {

constexpr uint8_t kChannelVersion = 1;
constexpr uint8_t kMemberVersion = 1;

template <class Enum, size_t N>
std::optional<Enum> parse_name(std::string_view s, const std::string_view (&names)[N]) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == s) return Enum(i);
  }
  return std::nullopt;
}

constexpr std::string_view kTypeNames[] = {"stream", "forum", "dm", "workflow"};
constexpr std::string_view kVisibilityNames[] = {"open", "private"};
constexpr std::string_view kRoleNames[] = {"bot", "guest", "member", "admin", "owner"};

void put_str32(std::string* out, std::string_view s) {
  put_u32(out, uint32_t(s.size()));
  out->append(s);
}

void put_key(std::string* out, const Pubkey& pk) { out->append(reinterpret_cast<const char*>(pk.data()), pk.size()); }

// Reads the fields back in the order they were put; any short read fails the whole decode.
class ChannelReader {
 public:
  explicit ChannelReader(std::string_view v) : v_(v) {}
  bool ok() const { return ok_; }
  bool done() const { return ok_ && v_.empty(); }
  uint8_t u8() { return take(1) ? uint8_t(last_[0]) : 0; }
  uint64_t u64() { return take(8) ? get_u64(last_.data()) : 0; }
  std::string str() {
    if (!take(4)) return {};
    return take(get_u32(last_.data())) ? std::string(last_) : std::string();
  }
  void key(Pubkey* pk) {
    if (take(pk->size())) std::memcpy(pk->data(), last_.data(), pk->size());
  }

 private:
  bool take(size_t n) {
    if (!ok_ || v_.size() < n) return ok_ = false;
    last_ = v_.substr(0, n);
    v_.remove_prefix(n);
    return true;
  }
  std::string_view v_, last_;
  bool ok_ = true;
};

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string_view channel_type_name(ChannelType t) { return kTypeNames[size_t(t)]; }
std::optional<ChannelType> parse_channel_type(std::string_view s) { return parse_name<ChannelType>(s, kTypeNames); }
std::string_view visibility_name(Visibility v) { return kVisibilityNames[size_t(v)]; }
std::optional<Visibility> parse_visibility(std::string_view s) { return parse_name<Visibility>(s, kVisibilityNames); }
std::string_view channel_role_name(ChannelRole r) { return kRoleNames[size_t(r)]; }
std::optional<ChannelRole> parse_channel_role(std::string_view s) { return parse_name<ChannelRole>(s, kRoleNames); }

std::string encode_channel(const Channel& c) {
  std::string v(1, char(kChannelVersion));
  for (const std::string* s : {&c.id, &c.name, &c.description, &c.topic, &c.purpose, &c.canvas, &c.participant_hash}) {
    put_str32(&v, *s);
  }
  put_key(&v, c.topic_set_by);
  put_key(&v, c.purpose_set_by);
  put_key(&v, c.created_by);
  v.push_back(char(c.type));
  v.push_back(char(c.visibility));
  for (uint64_t n : {c.topic_set_at, c.purpose_set_at, c.created_at, c.archived_at, c.deleted_at, uint64_t(c.ttl_seconds),
                     c.ttl_deadline}) {
    put_u64(&v, n);
  }
  return v;
}

bool decode_channel(std::string_view value, Channel* c) {
  ChannelReader r(value);
  if (r.u8() != kChannelVersion) return false;
  for (std::string* s : {&c->id, &c->name, &c->description, &c->topic, &c->purpose, &c->canvas, &c->participant_hash}) {
    *s = r.str();
  }
  r.key(&c->topic_set_by);
  r.key(&c->purpose_set_by);
  r.key(&c->created_by);
  uint8_t type = r.u8(), visibility = r.u8();
  if (type > uint8_t(ChannelType::kWorkflow) || visibility > uint8_t(Visibility::kPrivate)) return false;
  c->type = ChannelType(type);
  c->visibility = Visibility(visibility);
  for (uint64_t* n : {&c->topic_set_at, &c->purpose_set_at, &c->created_at, &c->archived_at, &c->deleted_at}) *n = r.u64();
  c->ttl_seconds = uint32_t(r.u64());
  c->ttl_deadline = r.u64();
  return r.done();
}

std::string encode_member(const ChannelMember& m) {
  std::string v(1, char(kMemberVersion));
  put_key(&v, m.pubkey);
  v.push_back(char(m.role));
  put_key(&v, m.invited_by);
  put_key(&v, m.removed_by);
  for (uint64_t n : {m.joined_at, m.join_seq, m.removed_at, m.hidden_at}) put_u64(&v, n);
  return v;
}

bool decode_member(std::string_view value, ChannelMember* m) {
  ChannelReader r(value);
  if (r.u8() != kMemberVersion) return false;
  r.key(&m->pubkey);
  uint8_t role = r.u8();
  if (role > uint8_t(ChannelRole::kOwner)) return false;
  m->role = ChannelRole(role);
  r.key(&m->invited_by);
  r.key(&m->removed_by);
  for (uint64_t* n : {&m->joined_at, &m->join_seq, &m->removed_at, &m->hidden_at}) *n = r.u64();
  return r.done();
}

std::string member_key(std::string_view channel, const Pubkey& pk) {
  std::string k(channel);
  put_key(&k, pk);
  return k;
}

bool is_canonical_uuid(std::string_view s) {
  if (s.size() != 36) return false;
  bool nil = true;
  for (size_t i = 0; i < 36; ++i) {
    char c = s[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      return false;
    } else if (c != '0') {
      nil = false;
    }
  }
  return !nil;
}

bool parses_as_uuid(std::string_view s) {
  if (s.starts_with("urn:uuid:")) s.remove_prefix(9);
  if (s.size() == 38 && s.front() == '{' && s.back() == '}') s = s.substr(1, 36);
  size_t digits = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (hex_value(s[i]) >= 0) {
      ++digits;
    } else if (!(s.size() == 36 && s[i] == '-' && (i == 8 || i == 13 || i == 18 || i == 23))) {
      return false;
    }
  }
  return digits == 32 && (s.size() == 32 || s.size() == 36);
}

std::string random_uuid() {
  uint8_t b[16];
  random_bytes(b, sizeof b);
  b[6] = (b[6] & 0x0f) | 0x40;  // version 4
  b[8] = (b[8] & 0x3f) | 0x80;  // RFC 4122 variant
  std::string hex = to_hex(b, sizeof b);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" + hex.substr(16, 4) + "-" + hex.substr(20);
}

std::string rfc3339(uint64_t unix_seconds) {
  time_t t = time_t(unix_seconds);
  tm utc{};
  gmtime_r(&t, &utc);
  char buf[40];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S+00:00", &utc);
  return buf;
}

}  // namespace buzz::engine
