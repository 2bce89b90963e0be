// Bans, blocked addresses and the relay's NIP-11 texts; see relay_policy.h.
// Table keys: "p" + pubkey hex, "e" + event id hex, "i" + address, "t" + 0/1/2
// for the name, description and icon; each value is "v" + the reason or text
// (so that an empty reason is not the empty value that deletes a key).
#include "server/access/relay_policy.h"

#include <arpa/inet.h>

#include <algorithm>
#include <mutex>

#include "engine/json_rpc.h"
#include "engine/json_text.h"

namespace buzz::server {
namespace {

using engine::Error;

constexpr std::string_view kMethods[] = {
    "banpubkey", "unbanpubkey", "banevent", "allowevent", "blockip", "unblockip",
    "changerelayname", "changerelaydescription", "changerelayicon",
};
constexpr char kListPrefix[] = {'p', 'e', 'i'};
constexpr size_t kMaxText = 4096;

RelayPolicy::List list_of(RelayPolicy::Op op) {
  switch (op) {
    case RelayPolicy::Op::kBanPubkey:
    case RelayPolicy::Op::kUnbanPubkey: return RelayPolicy::List::kPubkeys;
    case RelayPolicy::Op::kBanEvent:
    case RelayPolicy::Op::kAllowEvent: return RelayPolicy::List::kEvents;
    default: return RelayPolicy::List::kAddresses;
  }
}

bool is_text(RelayPolicy::Op op) { return op >= RelayPolicy::Op::kChangeName; }
// A ban, a block: the op that adds to its list (the others remove).
bool adds(RelayPolicy::Op op) {
  return op == RelayPolicy::Op::kBanPubkey || op == RelayPolicy::Op::kBanEvent || op == RelayPolicy::Op::kBlockIp;
}

// The address as inet_ntop writes it, or nullopt for anything else.
std::optional<std::string> canonical_address(std::string_view text) {
  const std::string s(text);
  char out[INET6_ADDRSTRLEN];
  in_addr v4;
  if (inet_pton(AF_INET, s.c_str(), &v4) == 1) return inet_ntop(AF_INET, &v4, out, sizeof out);
  in6_addr v6;
  if (inet_pton(AF_INET6, s.c_str(), &v6) == 1) return inet_ntop(AF_INET6, &v6, out, sizeof out);
  return std::nullopt;
}

// The address part of "address:port", "[v6]:port", or a bare address.
std::string_view address_of(std::string_view peer) {
  if (peer.starts_with('[')) return peer.substr(1, peer.find(']') - 1);
  const size_t colon = peer.find(':');
  if (colon != std::string_view::npos && peer.find(':', colon + 1) == std::string_view::npos) return peer.substr(0, colon);
  return peer;
}

}  // namespace

std::string_view RelayPolicy::method_name(Op op) { return kMethods[size_t(op)]; }

std::optional<RelayPolicy::Op> RelayPolicy::parse_method(std::string_view method) {
  for (size_t i = 0; i < std::size(kMethods); ++i) {
    if (kMethods[i] == method) return Op(i);
  }
  return std::nullopt;
}

engine::Result<RelayPolicy::Change> RelayPolicy::make(Op op, std::string_view subject, std::string_view reason) {
  Change c{op, std::string(subject), std::string(reason)};
  if (reason.size() > kMaxText) return Error{"reason too long (at most 4096 bytes)"};
  if (is_text(op)) {
    if (subject.size() > kMaxText) return Error{"text too long (at most 4096 bytes)"};
    return c;
  }
  if (list_of(op) == List::kAddresses) {
    auto address = canonical_address(subject);
    if (!address) return Error{"invalid IP address: " + std::string(subject)};
    c.subject = *address;
    return c;
  }
  uint8_t bytes[32];
  if (!engine::from_hex_any_case(subject, bytes, 32)) {
    return Error{std::string(list_of(op) == List::kPubkeys ? "invalid pubkey" : "invalid event id") +
                 ": expected 64 hex characters"};
  }
  c.subject = engine::to_hex(bytes, 32);
  return c;
}

// The change as the NIP-86 call that makes it.
std::string RelayPolicy::encode(const Change& c) {
  return json_object({{"method", json_string(method_name(c.op))},
                      {"params", json_string_array(std::vector<std::string>{c.subject, c.reason})}});
}

engine::Result<RelayPolicy::Change> RelayPolicy::decode(std::string_view json) {
  auto call = engine::parse_rpc_call(json);
  if (!call) return Error{call.error()};
  auto op = parse_method(call->method);
  if (!op) return Error{"unknown change " + call->method};
  return make(*op, call->string_param(0).value_or(""), call->string_param(1).value_or(""));
}

std::string RelayPolicy::key_of(const Change& c) {
  if (is_text(c.op)) return "t" + std::to_string(int(c.op) - int(Op::kChangeName));
  return kListPrefix[size_t(list_of(c.op))] + c.subject;
}

engine::Status RelayPolicy::load() {
  std::unique_lock lock(mu_);
  for (Rows& r : lists_) r.clear();
  for (auto& k : keys_) k.clear();
  for (auto& t : texts_) t.reset();
  engine::Status s = store_.scan_state(engine::StateTable::kRelayPolicy, [&](std::string_view key, std::string_view value) {
    if (key.empty() || !value.starts_with('v')) return;
    std::string text(value.substr(1));
    if (key[0] == 't' && key.size() == 2 && key[1] >= '0' && key[1] <= '2') {
      texts_[key[1] - '0'] = std::move(text);
      return;
    }
    const char* at = std::find(std::begin(kListPrefix), std::end(kListPrefix), key[0]);
    if (at != std::end(kListPrefix)) put_row(List(at - kListPrefix), std::string(key.substr(1)), std::move(text));
  });
  for (size_t i = 0; i < 3; ++i) counts_[i].store(lists_[i].size(), std::memory_order_relaxed);
  if (!s) return Error{"reading the relay policy: " + s.error()};
  return {};
}

engine::Status RelayPolicy::apply(const Change& c) {
  const bool text = is_text(c.op);
  const bool keep = text ? !c.subject.empty() : adds(c.op);
  const std::string value = keep ? "v" + (text ? c.subject : c.reason) : "";
  const engine::StateWrite write{engine::StateTable::kRelayPolicy, key_of(c), value};
  if (engine::Status s = store_.put_states({&write, 1}); !s) return Error{"writing the relay policy: " + s.error()};
  std::unique_lock lock(mu_);
  if (text) {
    auto& slot = texts_[int(c.op) - int(Op::kChangeName)];
    slot = keep ? std::optional(c.subject) : std::nullopt;
    return {};
  }
  const List which = list_of(c.op);
  if (keep) {
    put_row(which, c.subject, c.reason);
  } else {
    erase_row(which, c.subject);
  }
  return {};
}

void RelayPolicy::put_row(List which, const std::string& subject, std::string reason) {
  const size_t i = size_t(which);
  engine::Id key;
  if (which != List::kAddresses) {
    if (!engine::from_hex(subject, &key)) return;  // not a row this table can hold
    keys_[i].insert(key);
  }
  lists_[i][subject] = std::move(reason);
  counts_[i].store(lists_[i].size(), std::memory_order_relaxed);
}

void RelayPolicy::erase_row(List which, const std::string& subject) {
  const size_t i = size_t(which);
  engine::Id key;
  if (which != List::kAddresses && engine::from_hex(subject, &key)) keys_[i].erase(key);
  lists_[i].erase(subject);
  counts_[i].store(lists_[i].size(), std::memory_order_relaxed);
}

bool RelayPolicy::has(List which, const engine::Id& key) const {
  if (counts_[size_t(which)].load(std::memory_order_relaxed) == 0) return false;
  std::shared_lock lock(mu_);
  return keys_[size_t(which)].count(key) != 0;
}

bool RelayPolicy::pubkey_banned(const engine::Pubkey& pk) const { return has(List::kPubkeys, pk); }

bool RelayPolicy::event_banned(const engine::Id& id) const { return has(List::kEvents, id); }

bool RelayPolicy::address_blocked(std::string_view peer) const {
  if (counts_[size_t(List::kAddresses)].load(std::memory_order_relaxed) == 0) return false;
  auto address = canonical_address(address_of(peer));
  if (!address) return false;
  std::shared_lock lock(mu_);
  return lists_[size_t(List::kAddresses)].count(*address) != 0;
}

std::vector<RelayPolicy::Entry> RelayPolicy::list(List which) const {
  std::vector<Entry> out;
  {
    std::shared_lock lock(mu_);
    for (const auto& [subject, reason] : lists_[size_t(which)]) out.push_back({subject, reason});
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.subject < b.subject; });
  return out;
}

std::optional<std::string> RelayPolicy::text(Text which) const {
  std::shared_lock lock(mu_);
  return texts_[size_t(which)];
}

}  // namespace buzz::server
