#include "tools/proxy/translate.h"

#include <simdjson.h>

#include "engine/hex.h"
#include "engine/kind_numbers.h"
#include "engine/text.h"
#include "tools/proxy/kind_map.h"

namespace buzz::proxy {

namespace {

engine::Error denied(std::string_view detail) { return engine::Error{"error: permission denied: " + std::string(detail)}; }

// The `text` field of a 40002's JSON content, or the content unchanged.
std::string rich_text(const std::string& content) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::string_view text;
  if (parser.parse(content).get(doc) || doc["text"].get_string().get(text)) return content;
  return std::string(text);
}

}  // namespace

engine::Result<engine::Event> Translator::inbound(const engine::Event& e, const ChannelSet& allowed) {
  if (e.kind == kind::kChannelMessage || e.kind == kind::kTextNote || e.kind == kind::kChannelMetadata)
    return inbound_message(e, allowed);
  if (e.kind == kind::kReaction) return inbound_target(e, allowed);
  return denied("kind " + std::to_string(e.kind) + " not accepted by proxy (expected 1, 7, 41, or 42)");
}

engine::Result<engine::Event> Translator::inbound_message(const engine::Event& e, const ChannelSet& allowed) {
  const NipChannel* channel = nullptr;
  for (const engine::Tag& t : e.tags) {
    if (t.size() >= 2 && t[0] == "e" && (channel = channels.by_create_id(t[1]))) break;
  }
  if (!channel) return denied("kind:42 event must have an #e tag referencing a known channel");
  const std::string uuid = channel->info.uuid;
  if (!allowed.count(uuid)) return denied("channel " + uuid + " not in invite scope");

  std::vector<engine::Tag> tags = {{"h", uuid}};
  for (const engine::Tag& t : e.tags) {
    if (t.empty() || t[0] == "h") continue;
    if (t[0] == "e" && t.size() >= 2) {
      if (t[1] == channel->id) continue;  // the channel itself, now the h tag
      if (engine::is_hex64(t[1])) {
        // A reply or edit target: the relay knows it by its internal id.
        auto internal = ids.external_to_internal.get(engine::lower(t[1]));
        if (!internal) return denied("referenced event is unknown to the proxy; fetch it first");
        engine::Tag mapped = t;
        mapped[1] = *internal;
        tags.push_back(std::move(mapped));
        continue;
      }
    }
    tags.push_back(t);
  }
  auto key = shadows.of(e.pubkey_hex(), true);
  if (!key) return engine::Error{"error: " + key.error()};
  engine::Event out = engine::signed_event(*key, to_buzz(e.kind), e.created_at, std::move(tags), e.content);
  ids.remember(out.id_hex(), e.id_hex(), uuid);
  return out;
}

engine::Result<engine::Event> Translator::inbound_target(const engine::Event& e, const ChannelSet& allowed) {
  std::vector<std::string> targets;
  for (const engine::Tag& t : e.tags) {
    if (t.size() >= 2 && t[0] == "e" && engine::is_hex64(t[1])) targets.push_back(engine::lower(t[1]));
  }
  if (targets.empty()) return denied("kind:7 event must reference a target message via #e");
  std::unordered_map<std::string, std::string> internal_of;
  std::string uuid;
  for (const std::string& ext : targets) {
    auto internal = ids.external_to_internal.get(ext);
    auto channel = internal ? ids.internal_to_channel.get(*internal) : std::nullopt;
    if (!channel) return denied("reaction target is unknown to the proxy; fetch the message first");
    if (!uuid.empty() && uuid != *channel) {
      return denied("reaction targets span multiple channels — cross-channel targeting rejected");
    }
    uuid = *channel;
    internal_of[ext] = *internal;
  }
  if (!allowed.count(uuid)) return denied("reaction target channel not in invite scope");

  std::vector<engine::Tag> tags = {{"h", uuid}};
  for (const engine::Tag& t : e.tags) {
    if (t.empty() || t[0] == "h" || t[0] == "actor") continue;
    engine::Tag copy = t;
    if (t[0] == "e" && t.size() >= 2 && engine::is_hex64(t[1])) copy[1] = internal_of[engine::lower(t[1])];
    tags.push_back(std::move(copy));
  }
  auto key = shadows.of(e.pubkey_hex(), true);
  if (!key) return engine::Error{"error: " + key.error()};
  engine::Event out = engine::signed_event(*key, kind::kReaction, e.created_at, std::move(tags), e.content);
  ids.remember(out.id_hex(), e.id_hex(), uuid);
  return out;
}

Translator::Outbound Translator::outbound(const engine::Event& e) {
  if (is_outbound_message(e.kind)) return outbound_message(e);
  if (is_outbound_target(e.kind)) return outbound_target(e);
  return {};  // 40099, 39000…, 9005, 44100: not NIP-28
}

bool Translator::sign_as_author(const engine::Event& e, engine::Event* out) {
  // The relay signs on someone's behalf and names them in `actor`, else `p`.
  std::string author = e.pubkey_hex();
  if (e.pubkey == relay_pubkey) {
    auto named = [&](std::string_view tag) -> std::optional<std::string> {
      for (const engine::Tag& t : e.tags) {
        if (t.size() >= 2 && t[0] == tag && engine::is_hex64(t[1])) return engine::lower(t[1]);
      }
      return std::nullopt;
    };
    if (auto a = named("actor")) author = *a;
    else if (auto p = named("p")) author = *p;
  }
  // A guest's own message comes back signed by shadow(shadow(guest)); the p
  // tag lets its client recognise it (docs/reference/proxy.md §7.3).
  if (const std::string* guest = shadows.external_of(author)) out->tags.push_back({"p", *guest});
  auto key = shadows.of(author);
  if (!key) return false;
  engine::sign_event(*key, out);
  return true;
}

Translator::Outbound Translator::outbound_message(const engine::Event& e) {
  const NipChannel* channel = nullptr;
  size_t h_index = 0;
  for (size_t i = 0; i < e.tags.size() && !channel; ++i) {
    const engine::Tag& t = e.tags[i];
    if (t.size() >= 2 && t[0] == "h" && (channel = channels.by_uuid(t[1]))) h_index = i;
  }
  if (!channel) return {};
  Outbound result;
  result.channel = channel->info.uuid;
  engine::Event out;
  out.kind = to_standard(e.kind);
  out.created_at = e.created_at;
  out.content = e.kind == kind::kStreamMessageV2 ? rich_text(e.content) : e.content;
  out.tags.push_back({"e", channel->id});
  for (size_t i = 0; i < e.tags.size(); ++i) {
    const engine::Tag& t = e.tags[i];
    if (i == h_index || (!t.empty() && t[0] == "actor")) continue;
    engine::Tag copy = t;
    // A reply or edit target the client has seen goes back under its id.
    if (t.size() >= 2 && t[0] == "e" && engine::is_hex64(t[1])) {
      if (auto external = ids.internal_to_external.get(engine::lower(t[1]))) copy[1] = *external;
    }
    out.tags.push_back(std::move(copy));
  }
  if (!sign_as_author(e, &out)) return {};
  ids.remember(e.id_hex(), out.id_hex(), result.channel);
  result.event = std::move(out);
  return result;
}

Translator::Outbound Translator::outbound_target(const engine::Event& e) {
  Outbound result;
  std::vector<std::string> targets;
  for (const engine::Tag& t : e.tags) {
    if (t.size() >= 2 && t[0] == "e" && engine::is_hex64(t[1])) targets.push_back(engine::lower(t[1]));
  }
  for (const engine::Tag& t : e.tags) {
    if (t.size() >= 2 && t[0] == "h" && channels.by_uuid(t[1])) {
      result.channel = t[1];
      break;
    }
  }
  std::unordered_map<std::string, std::string> external_of;
  for (const std::string& id : targets) {
    auto external = ids.internal_to_external.get(id);
    if (!external) {
      result.missing.push_back(id);
      continue;
    }
    external_of[id] = *external;
    // Native clients' reactions carry no h: the target's channel stands in.
    if (result.channel.empty()) {
      if (auto c = ids.internal_to_channel.get(id)) result.channel = *c;
    }
  }
  if (targets.empty()) return {};
  if (!result.missing.empty()) return result;
  if (result.channel.empty()) return {};

  engine::Event out;
  out.kind = e.kind;
  out.created_at = e.created_at;
  out.content = e.content;
  for (const engine::Tag& t : e.tags) {
    if (t.empty() || t[0] == "h" || t[0] == "actor") continue;
    engine::Tag copy = t;
    if (t[0] == "e" && t.size() >= 2 && engine::is_hex64(t[1])) copy[1] = external_of[engine::lower(t[1])];
    out.tags.push_back(std::move(copy));
  }
  if (!sign_as_author(e, &out)) return {};
  ids.remember(e.id_hex(), out.id_hex(), result.channel);
  result.event = std::move(out);
  return result;
}

}  // namespace buzz::proxy
