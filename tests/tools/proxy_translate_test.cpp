// The NIP-28 proxy's translation, unit by unit (docs/reference/proxy.md §5–§8): kinds, shadow
// keys, the id caches, events both ways, REQ splitting, guests and invites,
// the admin API and the guest's AUTH checks.
#include <gtest/gtest.h>
#include <openssl/hmac.h>

#include "engine/canonical.h"
#include "engine/event_parse.h"
#include "engine/signature.h"
#include "tools/proxy/admin_api.h"
#include "tools/proxy/channel_map.h"
#include "tools/proxy/client_auth.h"
#include "tools/proxy/guest_book.h"
#include "tools/proxy/id_cache.h"
#include "tools/proxy/kind_map.h"
#include "tools/proxy/req_split.h"
#include "tools/proxy/shadow_keys.h"
#include "tools/proxy/translate.h"

namespace buzz::proxy {
namespace {

using engine::Event;
using engine::Keypair;

const std::vector<uint8_t> kSalt = {0x01, 0x02, 0x03, 0x04};
const std::string kGeneral = "11111111-1111-4111-8111-111111111111";
const std::string kSecret = "22222222-2222-4222-8222-222222222222";

Event signed_event(const Keypair& k, uint16_t kind, std::string content, std::vector<engine::Tag> tags,
                   uint64_t at = 1700000000) {
  return engine::signed_event(k, kind, at, std::move(tags), std::move(content));
}

struct World {
  Keypair server = engine::generate_keypair(), relay = engine::generate_keypair();
  ChannelMap channels{server};
  IdCaches ids;
  ShadowKeys shadows = *ShadowKeys::create(kSalt);
  Translator t{channels, ids, shadows, relay.pubkey};
  World() {
    channels.update({{kGeneral, 1600000000, "general", "the main room"}, {kSecret, 1600000100, "secret", ""}});
  }
  std::string channel_id(const std::string& uuid) { return channels.by_uuid(uuid)->id; }
};

TEST(ProxyKindMapTest, TheCompleteTable) {
  EXPECT_EQ(to_buzz(1), 9);
  EXPECT_EQ(to_buzz(40), 9);
  EXPECT_EQ(to_buzz(42), 9);
  EXPECT_EQ(to_buzz(41), 40003);
  EXPECT_EQ(to_buzz(44), 40003);
  EXPECT_EQ(to_buzz(4), 41001);
  EXPECT_EQ(to_buzz(43), 9005);
  EXPECT_EQ(to_buzz(7), 7);
  EXPECT_EQ(to_standard(9), 42);
  EXPECT_EQ(to_standard(40002), 42);
  EXPECT_EQ(to_standard(40003), 41);
  EXPECT_EQ(to_standard(41001), 4);
  EXPECT_EQ(to_standard(9005), 43);
  EXPECT_EQ(to_standard(5), 5);
}

TEST(ProxyShadowKeyTest, IsHmacOfThePubkeyBytesUnderTheSalt) {
  Keypair guest = engine::generate_keypair();
  auto k = derive_shadow_key(kSalt, engine::to_hex(guest.pubkey));
  ASSERT_TRUE(k) << k.error();
  uint8_t mac[32];
  unsigned int len = 0;
  HMAC(EVP_sha256(), kSalt.data(), int(kSalt.size()), guest.pubkey.data(), 32, mac, &len);
  EXPECT_EQ(engine::to_hex(k->secret), engine::to_hex(mac, 32));
  // Deterministic, and the salt matters.
  EXPECT_EQ(derive_shadow_key(kSalt, engine::to_hex(guest.pubkey))->pubkey, k->pubkey);
  EXPECT_NE(derive_shadow_key({9}, engine::to_hex(guest.pubkey))->pubkey, k->pubkey);
}

TEST(ProxyShadowKeyTest, RefusesAnEmptySaltAndABadPubkey) {
  EXPECT_EQ(ShadowKeys::create({}).error(), "shadow key derivation failed: shadow key salt must not be empty");
  auto bad = derive_shadow_key(kSalt, "abcd");
  ASSERT_FALSE(bad);
  EXPECT_TRUE(bad.error().starts_with("invalid external pubkey: ")) << bad.error();
  EXPECT_TRUE(derive_shadow_key(kSalt, std::string(64, 'z')).error().starts_with("invalid external pubkey: "));
}

TEST(ProxyShadowKeyTest, AFullCacheIsClearedNotGrown) {
  ShadowKeys keys = *ShadowKeys::create(kSalt);
  for (size_t i = 0; i <= ShadowKeys::kMaxEntries; ++i) {
    std::string pk = engine::to_hex(engine::generate_keypair().pubkey);
    ASSERT_TRUE(keys.of(pk));
  }
  EXPECT_EQ(keys.size(), 1u);
}

TEST(ProxyIdCacheTest, EntriesExpireAfterAnHourUnused) {
  TtlCache c(3, std::chrono::hours(1));
  auto t0 = TtlCache::Clock::now();
  c.put("a", "1", t0);
  c.put("b", "2", t0);
  EXPECT_EQ(c.get("a", t0 + std::chrono::minutes(59)).value(), "1");  // used: kept
  EXPECT_FALSE(c.get("b", t0 + std::chrono::minutes(61)));
  EXPECT_EQ(c.get("a", t0 + std::chrono::minutes(61)).value(), "1");
  c.put("c", "3", t0 + std::chrono::minutes(62));
  c.put("d", "4", t0 + std::chrono::minutes(62));
  c.put("e", "5", t0 + std::chrono::minutes(62));  // full: the least recently used goes
  EXPECT_FALSE(c.get("a", t0 + std::chrono::minutes(62)));
  EXPECT_EQ(c.size(), 3u);
}

TEST(ProxyChannelMapTest, Kind40IdIsStableAcrossRenamesAndKeys) {
  World w;
  const NipChannel* c = w.channels.by_uuid(kGeneral);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->create.kind, 40);
  EXPECT_EQ(c->create.created_at, 1600000000u);
  EXPECT_EQ(c->create.content, R"({"about":"","name":")" + kGeneral + R"(","picture":""})");
  EXPECT_EQ(c->metadata.kind, 41);
  EXPECT_EQ(c->metadata.content, R"({"about":"the main room","name":"general","picture":""})");
  EXPECT_EQ(c->metadata.tags, (std::vector<engine::Tag>{{"e", c->id}}));
  const std::string id = c->id;
  w.channels.update({{kGeneral, 1600000000, "renamed", "x"}});
  EXPECT_EQ(w.channels.by_uuid(kGeneral)->id, id);
  EXPECT_EQ(w.channels.by_create_id(id)->info.name, "renamed");
  EXPECT_EQ(w.channels.by_uuid(kSecret), nullptr);
}

TEST(ProxyChannelMapTest, ParsesTheRelaysChannelList) {
  auto rows = parse_channel_list(R"([{"id":")" + kGeneral +
                                 R"(","name":"general","description":"d","created_at":"2026-05-01T10:00:00Z"},
                                    {"id":"x","created_at":"bad"}])");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].created_at, 1777629600u);
  EXPECT_EQ(parse_rfc3339("2026-05-01T12:00:00.123+02:00").value(), 1777629600u);
  EXPECT_FALSE(parse_rfc3339("yesterday"));
}

TEST(ProxyInboundTest, AKind42BecomesAShadowSignedKind9InItsChannel) {
  World w;
  Keypair guest = engine::generate_keypair();
  Event e = signed_event(guest, 42, "hello", {{"e", w.channel_id(kGeneral), "", "root"}, {"h", kSecret}, {"t", "x"}});
  auto out = w.t.inbound(e, {kGeneral});
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(out->kind, 9);
  EXPECT_EQ(out->content, "hello");
  EXPECT_EQ(out->created_at, e.created_at);
  EXPECT_EQ(out->tags, (std::vector<engine::Tag>{{"h", kGeneral}, {"t", "x"}}));
  EXPECT_EQ(out->pubkey, derive_shadow_key(kSalt, engine::to_hex(guest.pubkey))->pubkey);
  std::string reason;
  EXPECT_EQ(engine::check_event(*out, &reason), engine::EventCheck::kOk);
  EXPECT_EQ(w.ids.external_to_internal.get(e.id_hex()).value(), out->id_hex());
  EXPECT_EQ(w.ids.internal_to_channel.get(out->id_hex()).value(), kGeneral);
}

TEST(ProxyInboundTest, RefusalsCarryTheSpecsText) {
  World w;
  Keypair guest = engine::generate_keypair();
  auto reason = [&](const Event& e) { return w.t.inbound(e, {kGeneral}).error(); };
  EXPECT_EQ(reason(signed_event(guest, 4, "", {})),
            "error: permission denied: kind 4 not accepted by proxy (expected 1, 7, 41, or 42)");
  EXPECT_EQ(reason(signed_event(guest, 5, "", {{"e", std::string(64, 'a')}})),
            "error: permission denied: kind 5 not accepted by proxy (expected 1, 7, 41, or 42)");
  EXPECT_EQ(reason(signed_event(guest, 1, "plain note", {})),
            "error: permission denied: kind:42 event must have an #e tag referencing a known channel");
  EXPECT_EQ(reason(signed_event(guest, 42, "x", {{"e", w.channel_id(kSecret)}})),
            "error: permission denied: channel " + kSecret + " not in invite scope");
  EXPECT_EQ(reason(signed_event(guest, 42, "x", {{"e", w.channel_id(kGeneral)}, {"e", std::string(64, 'b'), "", "reply"}})),
            "error: permission denied: referenced event is unknown to the proxy; fetch it first");
  EXPECT_EQ(reason(signed_event(guest, 7, "+", {})),
            "error: permission denied: kind:7 event must reference a target message via #e");
  EXPECT_EQ(reason(signed_event(guest, 7, "+", {{"e", std::string(64, 'c')}})),
            "error: permission denied: reaction target is unknown to the proxy; fetch the message first");
}

TEST(ProxyInboundTest, ReactionsAndRepliesPointAtTheRelaysIds) {
  World w;
  Keypair member = engine::generate_keypair(), guest = engine::generate_keypair();
  Event internal = signed_event(member, 9, "hi", {{"h", kGeneral}});
  Event internal2 = signed_event(member, 9, "secret", {{"h", kSecret}});
  auto seen = w.t.outbound(internal);
  auto seen2 = w.t.outbound(internal2);
  ASSERT_TRUE(seen.event && seen2.event);
  const std::string ext = seen.event->id_hex();

  auto reaction = w.t.inbound(signed_event(guest, 7, "+", {{"e", ext}, {"p", "x"}, {"actor", "y"}}), {kGeneral});
  ASSERT_TRUE(reaction) << reaction.error();
  EXPECT_EQ(reaction->tags, (std::vector<engine::Tag>{{"h", kGeneral}, {"e", internal.id_hex()}, {"p", "x"}}));
  EXPECT_EQ(w.t.inbound(signed_event(guest, 7, "+", {{"e", ext}, {"e", seen2.event->id_hex()}}), {kGeneral, kSecret}).error(),
            "error: permission denied: reaction targets span multiple channels — cross-channel targeting rejected");
  EXPECT_EQ(w.t.inbound(signed_event(guest, 7, "+", {{"e", seen2.event->id_hex()}}), {kGeneral}).error(),
            "error: permission denied: reaction target channel not in invite scope");

  auto reply = w.t.inbound(signed_event(guest, 42, "re", {{"e", w.channel_id(kGeneral), "", "root"}, {"e", ext, "", "reply"}}),
                           {kGeneral});
  ASSERT_TRUE(reply) << reply.error();
  EXPECT_EQ(reply->tags, (std::vector<engine::Tag>{{"h", kGeneral}, {"e", internal.id_hex(), "", "reply"}}));
  auto edit = w.t.inbound(signed_event(guest, 41, "fixed", {{"e", w.channel_id(kGeneral)}, {"e", ext}}), {kGeneral});
  ASSERT_TRUE(edit) << edit.error();
  EXPECT_EQ(edit->kind, 40003);
}

TEST(ProxyOutboundTest, AKind9BecomesAKind42SignedByTheAuthorsShadow) {
  World w;
  Keypair member = engine::generate_keypair();
  Event e = signed_event(member, 9, "hi", {{"h", kGeneral}, {"actor", "z"}, {"t", "x"}});
  auto out = w.t.outbound(e);
  ASSERT_TRUE(out.event);
  EXPECT_EQ(out.channel, kGeneral);
  EXPECT_EQ(out.event->kind, 42);
  EXPECT_EQ(out.event->tags, (std::vector<engine::Tag>{{"e", w.channel_id(kGeneral)}, {"t", "x"}}));
  EXPECT_EQ(out.event->pubkey, derive_shadow_key(kSalt, e.pubkey_hex())->pubkey);
  EXPECT_EQ(w.ids.internal_to_external.get(e.id_hex()).value(), out.event->id_hex());

  auto rich = w.t.outbound(signed_event(member, 40002, R"({"text":"plain","blocks":[]})", {{"h", kGeneral}}));
  EXPECT_EQ(rich.event->content, "plain");
  EXPECT_EQ(rich.event->kind, 42);
  EXPECT_EQ(w.t.outbound(signed_event(member, 40003, "edited", {{"h", kGeneral}})).event->kind, 41);
  EXPECT_FALSE(w.t.outbound(signed_event(member, 9, "x", {{"h", "33333333-3333-4333-8333-333333333333"}})).event);
  EXPECT_FALSE(w.t.outbound(signed_event(member, 40099, "{}", {{"h", kGeneral}})).event);
  EXPECT_FALSE(w.t.outbound(signed_event(member, 9005, "", {{"h", kGeneral}})).event);
}

TEST(ProxyOutboundTest, RelaySignedEventsAreAttributedToTheirActor) {
  World w;
  Keypair actor = engine::generate_keypair();
  auto out = w.t.outbound(signed_event(w.relay, 9, "from a workflow", {{"h", kGeneral}, {"actor", engine::to_hex(actor.pubkey)}}));
  ASSERT_TRUE(out.event);
  EXPECT_EQ(out.event->pubkey, derive_shadow_key(kSalt, engine::to_hex(actor.pubkey))->pubkey);
}

TEST(ProxyOutboundTest, AGuestsOwnMessageComesBackNamingTheGuest) {
  World w;
  Keypair guest = engine::generate_keypair();
  auto in = w.t.inbound(signed_event(guest, 42, "mine", {{"e", w.channel_id(kGeneral)}}), {kGeneral});
  ASSERT_TRUE(in);
  auto back = w.t.outbound(*in);
  ASSERT_TRUE(back.event);
  EXPECT_EQ(back.event->pubkey, derive_shadow_key(kSalt, in->pubkey_hex())->pubkey);
  EXPECT_EQ(back.event->tags.back(), (engine::Tag{"p", engine::to_hex(guest.pubkey)}));
}

TEST(ProxyOutboundTest, ReactionsMapTheirTargetsOrAskForThem) {
  World w;
  Keypair member = engine::generate_keypair();
  Event msg = signed_event(member, 9, "hi", {{"h", kGeneral}});
  Event reaction = signed_event(member, 7, "+", {{"e", msg.id_hex()}, {"p", "q"}});  // no h: a native client's
  auto before = w.t.outbound(reaction);
  EXPECT_FALSE(before.event);
  EXPECT_EQ(before.missing, std::vector<std::string>{msg.id_hex()});
  auto seen = w.t.outbound(msg);
  auto after = w.t.outbound(reaction);
  ASSERT_TRUE(after.event);
  EXPECT_EQ(after.channel, kGeneral);
  EXPECT_EQ(after.event->tags, (std::vector<engine::Tag>{{"e", seen.event->id_hex()}, {"p", "q"}}));
}

std::vector<simdjson::dom::element> filters_of(simdjson::dom::parser& p, const std::string& json) {
  std::vector<simdjson::dom::element> out;
  simdjson::dom::array filters;
  EXPECT_FALSE(p.parse(json).get_array().get(filters)) << json;
  for (simdjson::dom::element e : filters) out.push_back(e);
  return out;
}

TEST(ProxyReqSplitTest, KindsAndChannelsAreTranslated) {
  World w;
  simdjson::dom::parser p;
  auto split = split_req(filters_of(p, R"([{"kinds":[42],"#e":[")" + w.channel_id(kGeneral) + R"("],"limit":20}])"),
                         w.channels, w.ids, {kGeneral, kSecret});
  ASSERT_TRUE(split);
  EXPECT_TRUE(split->local.empty());
  ASSERT_EQ(split->upstream.size(), 1u);
  EXPECT_EQ(join_history(split->upstream.at(kGeneral)), R"({"kinds":[9],"limit":20,"#h":[")" + kGeneral + R"("]})");
  EXPECT_EQ(join_live(split->upstream.at(kGeneral)), R"({"kinds":[9],"#h":[")" + kGeneral + R"("],"limit":0})");
  EXPECT_EQ(join_live(split->upstream.at(kGeneral), 1700000000),
            R"({"kinds":[9],"#h":[")" + kGeneral + R"("],"since":1700000000})");
  // `limit: 0` wants only live events: no history REQ upstream.
  auto live_only = split_req(filters_of(p, R"([{"kinds":[42],"limit":0}])"), w.channels, w.ids, {kGeneral});
  EXPECT_EQ(join_history(live_only->upstream.at(kGeneral)), "");
  EXPECT_EQ(join_live(live_only->upstream.at(kGeneral)), R"({"kinds":[9],"#h":[")" + kGeneral + R"("],"limit":0})");
}

TEST(ProxyReqSplitTest, AGuestNeverReachesAChannelOutsideItsList) {
  World w;
  simdjson::dom::parser p;
  // Asking for a channel it may not see: nothing upstream, and no kind 40/41 of it.
  auto denied = split_req(filters_of(p, R"([{"#e":[")" + w.channel_id(kSecret) + R"("],"#h":[")" + kSecret + R"("]}])"),
                          w.channels, w.ids, {kGeneral});
  ASSERT_TRUE(denied);
  EXPECT_TRUE(denied->upstream.empty());
  ASSERT_EQ(denied->local.size(), 1u);
  EXPECT_TRUE(local_events(denied->local[0], w.channels, {kGeneral}, engine::to_hex(w.server.pubkey)).empty());
  // No #e: every allowed channel, one filter each, the client's #h replaced.
  auto all = split_req(filters_of(p, R"([{"kinds":[42,7],"#h":[")" + kSecret + R"("]}])"), w.channels, w.ids,
                       {kGeneral, "33333333-3333-4333-8333-333333333333"});
  ASSERT_TRUE(all);
  EXPECT_EQ(all->upstream.size(), 2u);
  EXPECT_FALSE(all->upstream.count(kSecret));
}

TEST(ProxyReqSplitTest, Kinds40And41AreServedFromTheChannelMap) {
  World w;
  simdjson::dom::parser p;
  const std::string server = engine::to_hex(w.server.pubkey);
  auto split = split_req(filters_of(p, R"([{"kinds":[40,41]}])"), w.channels, w.ids, {kGeneral, kSecret});
  ASSERT_TRUE(split);
  ASSERT_EQ(split->local.size(), 1u);
  auto events = local_events(split->local[0], w.channels, {kGeneral, kSecret}, server);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0]->kind, 40);
  EXPECT_EQ(events[1]->kind, 41);
  // 41 also goes upstream, as 40003, for edits; 40 does not.
  ASSERT_EQ(split->upstream.size(), 2u);
  EXPECT_NE(join_history(split->upstream.at(kGeneral)).find(R"("kinds":[40003])"), std::string::npos);
  auto only40 = split_req(filters_of(p, R"([{"kinds":[40],"limit":1}])"), w.channels, w.ids, {kGeneral, kSecret});
  EXPECT_TRUE(only40->upstream.empty());
  EXPECT_EQ(local_events(only40->local[0], w.channels, {kGeneral, kSecret}, server).size(), 1u);
  LocalFilter other_author{{40}, std::nullopt, std::set<std::string>{std::string(64, 'a')}, std::nullopt, {}, {}, {}};
  EXPECT_TRUE(local_events(other_author, w.channels, {kGeneral}, server).empty());
}

TEST(ProxyGuestBookTest, InvitesExpireAndRunOut) {
  GuestBook book;
  const std::string token = book.create_invite({kGeneral}, 1000, 2);
  EXPECT_TRUE(token.starts_with("buzz_invite_"));
  EXPECT_EQ(token.size(), 12u + 32u);
  EXPECT_EQ(book.redeem("buzz_invite_nope", 10).error(), "invite token not found");
  EXPECT_TRUE(book.redeem(token, 10));
  EXPECT_TRUE(book.redeem(token, 10));
  EXPECT_EQ(book.redeem(token, 10).error(), "invite token exhausted");
  const std::string later = book.create_invite({kGeneral}, 1000, 5);
  EXPECT_EQ(book.redeem(later, 1000).error(), "invite token expired");
  EXPECT_EQ(parse_channel_list_csv(kGeneral + ", nonsense ," + kGeneral + "," + kSecret),
            (std::vector<std::string>{kGeneral, kSecret}));
}

net::HttpRequest request(std::string method, std::string path, std::string body, std::string auth = "") {
  net::HttpRequest r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.body = std::move(body);
  if (!auth.empty()) r.headers.emplace_back("authorization", auth);
  return r;
}

TEST(ProxyAdminApiTest, GuestsAndInvitesBehindTheSecret) {
  GuestBook book;
  std::string revoked;
  AdminApi api(book, std::string("s3cret"), [&](const std::string& pk) { revoked = pk; });
  const std::string pk(64, 'a');
  auto r = api.handle(request("POST", "/admin/guests", R"({"pubkey":")" + pk + R"(","channels":")" + kGeneral + R"("})"), 0);
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(r->body, R"({"error":"unauthorized: missing or invalid Authorization header"})");
  const std::string auth = "Bearer s3cret";
  r = api.handle(request("POST", "/admin/guests", R"({"pubkey":")" + pk + R"(","channels":")" + kGeneral + R"("})", auth), 0);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, R"({"pubkey":")" + pk + R"(","channels":[")" + kGeneral + R"("]})");
  r = api.handle(request("POST", "/admin/guests", R"({"pubkey":")" + pk + R"(","channels":"junk"})", auth), 0);
  EXPECT_EQ(r->body, R"({"error":"at least one valid channel UUID required"})");
  r = api.handle(request("POST", "/admin/guests", R"({"pubkey":"abc","channels":")" + kGeneral + R"("})", auth), 0);
  EXPECT_EQ(r->status, 400);
  EXPECT_TRUE(r->body.starts_with(R"({"error":"invalid pubkey: )")) << r->body;
  r = api.handle(request("GET", "/admin/guests", "", auth), 0);
  EXPECT_EQ(r->body, R"({"guests":[{"pubkey":")" + pk + R"(","channels":[")" + kGeneral + R"("]}]})");
  r = api.handle(request("DELETE", "/admin/guests", R"({"pubkey":")" + pk + R"("})", auth), 0);
  EXPECT_EQ(r->body, R"({"revoked":true})");
  EXPECT_EQ(revoked, pk);
  r = api.handle(request("DELETE", "/admin/guests", R"({"pubkey":")" + pk + R"("})", auth), 0);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(r->body, R"({"error":"pubkey not registered"})");
  r = api.handle(request("POST", "/admin/invite", R"({"channels":")" + kGeneral + R"(","hours":0})", auth), 0);
  EXPECT_EQ(r->body, R"({"error":"hours and max_uses must be > 0"})");
  r = api.handle(request("POST", "/admin/invite", R"({"channels":")" + kGeneral + R"("})", auth), 0);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find(R"("expires_at":"1970-01-02T00:00:00)"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find(R"("max_uses":10)"), std::string::npos);
  EXPECT_FALSE(api.handle(request("GET", "/", ""), 0));
}

TEST(ProxyClientAuthTest, ChecksInTheSpecsOrder) {
  Keypair guest = engine::generate_keypair();
  AuthExpectation x{"c-1", 1700000000, 60, "ws://127.0.0.1:4869"};
  auto auth = [&](uint16_t kind, std::string challenge, uint64_t at, std::string relay) {
    return signed_event(guest, kind, "", {{"relay", relay}, {"challenge", challenge}}, at);
  };
  EXPECT_FALSE(check_client_auth(auth(22242, "c-1", 1700000010, "ws://localhost:4869/"), x));
  EXPECT_EQ(check_client_auth(auth(1, "c-1", 1700000000, "ws://127.0.0.1:4869"), x), "invalid: wrong kind for AUTH");
  EXPECT_EQ(check_client_auth(auth(22242, "c-2", 1700000000, "ws://127.0.0.1:4869"), x), "invalid: wrong challenge");
  EXPECT_EQ(check_client_auth(auth(22242, "c-1", 1700000100, "ws://127.0.0.1:4869"), x),
            "invalid: auth event timestamp too far from now");
  EXPECT_EQ(check_client_auth(auth(22242, "c-1", 1700000000, "ws://elsewhere:4869"), x), "invalid: wrong relay");
  Event forged = auth(22242, "c-1", 1700000000, "ws://127.0.0.1:4869");
  forged.sig[0] ^= 1;
  EXPECT_EQ(check_client_auth(forged, x), "invalid: bad signature");
  x.relay_url.clear();  // not configured: not checked
  EXPECT_FALSE(check_client_auth(auth(22242, "c-1", 1700000000, "ws://elsewhere:4869"), x));
}

}  // namespace
}  // namespace buzz::proxy
