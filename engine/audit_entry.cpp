// Audit entries, their hash and payload; see audit_entry.h.
#include "engine/audit_entry.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <utility>
#include <vector>

#include "engine/canonical.h"
#include "engine/event_record.h"
#include "engine/hex.h"
#include "engine/json_text.h"

namespace buzz::engine {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

constexpr std::array<std::string_view, 12> kActions = {
    kActionEventCreated,   kActionEventDeleted, kActionChannelCreated, kActionChannelUpdated,
    kActionChannelDeleted, kActionMemberAdded,  kActionMemberRemoved,  kActionAuthSuccess,
    kActionAuthFailure,    kActionRateLimitExceeded, kActionMediaUploaded, kActionRelayAdmin,
};

// One parser per thread: audit entries are built on the writer thread and read
// by verification, possibly at the same time.
simdjson::dom::parser& json_parser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

// The 16 bytes of a canonical lowercase UUID (8-4-4-4-12), RFC 4122 order.
bool parse_uuid(std::string_view text, uint8_t out[16]) {
  static constexpr size_t kGroups[][2] = {{0, 8}, {9, 4}, {14, 4}, {19, 4}, {24, 12}};
  if (text.size() != 36) return false;
  size_t at = 0;
  for (const auto& [start, len] : kGroups) {
    if (start > 0 && text[start - 1] != '-') return false;
    if (!hex_decode(text.substr(start, len), out + at, len / 2)) return false;
    at += len / 2;
  }
  return true;
}

bool is_hash_hex(std::string_view s) {
  Id bytes;
  return from_hex(s, &bytes);
}

Status append_canonical(element v, std::string& out) {
  switch (v.type()) {
    case element_type::NULL_VALUE: out += "null"; return {};
    case element_type::BOOL: out += v.get_bool().value_unsafe() ? "true" : "false"; return {};
    case element_type::INT64: out += std::to_string(v.get_int64().value_unsafe()); return {};
    case element_type::UINT64: out += std::to_string(v.get_uint64().value_unsafe()); return {};
    case element_type::DOUBLE: return Error{"metadata must not contain floating-point numbers"};
    case element_type::STRING: append_json_string(out, v.get_string().value_unsafe()); return {};
    case element_type::ARRAY: {
      simdjson::dom::array items;
      if (v.get(items)) return Error{"metadata has an unreadable array"};
      out.push_back('[');
      bool first = true;
      for (element item : items) {
        if (!first) out.push_back(',');
        first = false;
        if (Status s = append_canonical(item, out); !s) return s;
      }
      out.push_back(']');
      return {};
    }
    case element_type::OBJECT: {
      simdjson::dom::object object;
      if (v.get(object)) return Error{"metadata has an unreadable object"};
      std::vector<std::pair<std::string_view, element>> members;
      for (auto [key, value] : object) members.emplace_back(key, value);
      // string_view compares bytes as unsigned, which is code-point order for UTF-8.
      std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      out.push_back('{');
      for (size_t i = 0; i < members.size(); ++i) {
        if (i > 0 && members[i].first == members[i - 1].first) {
          return Error{"metadata has a duplicate key \"" + std::string(members[i].first) + "\""};
        }
        if (i) out.push_back(',');
        append_json_string(out, members[i].first);
        out.push_back(':');
        if (Status s = append_canonical(members[i].second, out); !s) return s;
      }
      out.push_back('}');
      return {};
    }
  }
  return Error{"metadata has an unknown JSON type"};
}

// The checks shared by records being submitted and entries being read back.
Status check_fields(const AuditRecord& r) {
  if (r.kind == kAuditForbiddenKind) return Error{std::string(kAuditForbiddenKindError)};
  if (!is_audit_action(r.action)) return Error{"unknown audit action: \"" + r.action + "\""};
  if (r.event_id.size() > kMaxAuditFieldBytes) return Error{"audit event_id is longer than 255 bytes"};
  if (r.actor.size() > kMaxAuditFieldBytes) return Error{"audit actor is longer than 255 bytes"};
  uint8_t uuid[16];
  if (!r.channel.empty() && !parse_uuid(r.channel, uuid)) {
    return Error{"audit channel must be a lowercase UUID, got \"" + r.channel + "\""};
  }
  return {};
}

}  // namespace

bool is_audit_action(std::string_view action) {
  return std::find(kActions.begin(), kActions.end(), action) != kActions.end();
}

Status normalize_audit_record(AuditRecord& r) {
  if (Status s = check_fields(r); !s) return s;
  if (!simdjson::validate_utf8(r.event_id.data(), r.event_id.size()) ||
      !simdjson::validate_utf8(r.actor.data(), r.actor.size())) {
    return Error{"audit event_id and actor must be UTF-8"};
  }
  if (r.meta.size() > kMaxAuditMetaBytes) return Error{"audit metadata is larger than 64 KiB"};
  Result<std::string> meta = canonical_json(r.meta);
  if (!meta) return Error{meta.error()};
  r.meta = std::move(*meta);
  return {};
}

std::string audit_timestamp(int64_t unix_micros) {
  using namespace std::chrono;
  const sys_time<microseconds> t{microseconds(unix_micros)};
  const sys_days day = floor<days>(t);
  const year_month_day ymd{day};
  const hh_mm_ss hms{t - day};
  const int64_t micros = hms.subseconds().count();
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d", int(ymd.year()), unsigned(ymd.month()),
                        unsigned(ymd.day()), int(hms.hours().count()), int(hms.minutes().count()),
                        int(hms.seconds().count()));
  if (micros % 1000 == 0 && micros != 0) {
    n += std::snprintf(buf + n, sizeof buf - size_t(n), ".%03d", int(micros / 1000));
  } else if (micros != 0) {
    n += std::snprintf(buf + n, sizeof buf - size_t(n), ".%06d", int(micros));
  }
  return std::string(buf, size_t(n)) + "+00:00";
}

std::string audit_hash(const AuditEntry& e) {
  std::string bytes;
  bytes.reserve(8 + e.ts.size() + e.event_id.size() + 4 + e.actor.size() + e.action.size() + 16 + e.meta.size() + 64);
  put_u64(&bytes, e.seq);
  bytes += e.ts;
  bytes += e.event_id;
  put_u32(&bytes, e.kind);
  bytes += e.actor;
  bytes += e.action;
  uint8_t uuid[16] = {};  // no channel: 16 zero bytes
  if (!e.channel.empty()) parse_uuid(e.channel, uuid);
  bytes.append(reinterpret_cast<const char*>(uuid), sizeof uuid);
  bytes += e.meta;
  bytes += e.prev_hash;  // the 64 ASCII hex characters, not decoded bytes
  uint8_t digest[32];
  sha256(bytes.data(), bytes.size(), digest);
  return to_hex(digest, sizeof digest);
}

Result<std::string> canonical_json(std::string_view json) {
  element root;
  if (auto err = json_parser().parse(json.data(), json.size()).get(root)) {
    return Error{std::string("metadata is not valid JSON: ") + simdjson::error_message(err)};
  }
  std::string out;
  if (Status s = append_canonical(root, out); !s) return Error{s.error()};
  return out;
}

std::string encode_audit_payload(const AuditEntry& e) {
  // The segment payload's key order (docs/reference/audit.md §8.3).
  return JsonFields(256 + e.event_id.size() + e.actor.size() + e.meta.size())
      .number("seq", e.seq)
      .string("ts", e.ts)
      .string("event_id", e.event_id)
      .number("kind", e.kind)
      .string("actor", e.actor)
      .string("action", e.action)
      .string_or_null("channel", e.channel)
      .json("meta", e.meta)
      .string("prev", e.prev_hash)
      .string("hash", e.hash)
      .str();
}

Result<AuditEntry> decode_audit_payload(std::string_view payload) {
  element root;
  simdjson::dom::object obj;
  if (json_parser().parse(payload.data(), payload.size()).get(root) || root.get(obj)) {
    return Error{"entry payload is not a JSON object"};
  }
  AuditEntry e;
  uint64_t kind = 0;
  std::string_view ts, event_id, actor, action, prev, hash;
  element channel, meta;
  if (obj["seq"].get(e.seq) || obj["ts"].get(ts) || obj["event_id"].get(event_id) || obj["kind"].get(kind) ||
      obj["actor"].get(actor) || obj["action"].get(action) || obj["channel"].get(channel) ||
      obj["meta"].get(meta) || obj["prev"].get(prev) || obj["hash"].get(hash)) {
    return Error{"entry payload lacks a field or has one of the wrong type"};
  }
  if (e.seq == 0 || kind > UINT32_MAX) return Error{"entry payload has seq 0 or a kind out of u32 range"};
  e.kind = uint32_t(kind);
  e.ts = ts;
  e.event_id = event_id;
  e.actor = actor;
  e.action = action;
  e.prev_hash = prev;
  e.hash = hash;
  if (!channel.is_null()) {
    std::string_view text;
    if (channel.get(text)) return Error{"entry channel must be a string or null"};
    e.channel = text;
  }
  e.meta.clear();
  if (Status s = append_canonical(meta, e.meta); !s) return Error{s.error()};
  if (Status s = check_fields(e); !s) return Error{s.error()};
  if (!is_hash_hex(e.prev_hash) || !is_hash_hex(e.hash)) return Error{"entry prev and hash must be 64 lowercase hex"};
  if (encode_audit_payload(e) != payload) return Error{"entry payload is not in canonical form"};
  return e;
}

}  // namespace buzz::engine
