// End-to-end tests of reading: REQ filters and history order, live delivery
// until CLOSE, COUNT, and the p-gated kinds only their recipient may read.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/event.h"
#include "engine/signature.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/open_relay_fixture.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;

std::vector<uint64_t> times_of(const std::vector<Event>& events) {
  std::vector<uint64_t> out;
  for (const auto& e : events) out.push_back(e.created_at);
  return out;
}

// --- Filters -------------------------------------------------------------------

TEST_F(OpenRelayTest, FilterByIdsReturnsExactlyTheListedEvents) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  auto events = publish_series(*c, key, 4, unix_now() - 100);
  ReqResult r = c->req("ids", R"({"ids":[")" + events[1].id_hex() + R"(",")" + events[3].id_hex() + R"("]})");
  ASSERT_TRUE(r.eose) << why(r);
  EXPECT_EQ(ids_of(r.events), (std::vector<std::string>{events[3].id_hex(), events[1].id_hex()}));
}

TEST_F(OpenRelayTest, FilterByAuthorsReturnsOnlyThoseAuthors) {
  Keypair a = engine::generate_keypair(), b = engine::generate_keypair(), other = engine::generate_keypair();
  auto ca = authed_client(relay(), a);
  auto cb = authed_client(relay(), b);
  auto co = authed_client(relay(), other);
  ASSERT_TRUE(ca && cb && co);
  const uint64_t t = unix_now() - 50;
  Event ea = make_event(a, 1, "a", {}, t);
  Event eb = make_event(b, 1, "b", {}, t + 1);
  ASSERT_TRUE(ca->publish(ea).accepted);
  ASSERT_TRUE(cb->publish(eb).accepted);
  ASSERT_TRUE(co->publish(make_event(other, 1, "other", {}, t + 2)).accepted);
  ReqResult r = ca->req("authors", R"({"kinds":[1],"authors":[")" + hex(a) + R"(",")" + hex(b) + R"("]})");
  ASSERT_TRUE(r.eose) << why(r);
  EXPECT_EQ(ids_of(r.events), (std::vector<std::string>{eb.id_hex(), ea.id_hex()}));
}

TEST_F(OpenRelayTest, FilterByKindsMatchesOnlyThoseKinds) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  Event note = make_event(key, 1, "note");
  Event article = make_event(key, 30023, "article", {{"d", "kinds-test"}});
  ASSERT_TRUE(c->publish(note).accepted);
  ASSERT_TRUE(c->publish(article).accepted);
  ReqResult r = c->req("k", R"({"kinds":[30023],"authors":[")" + hex(key) + R"("]})");
  ASSERT_TRUE(r.eose) << why(r);
  EXPECT_EQ(ids_of(r.events), (std::vector<std::string>{article.id_hex()}));
}

// NIP-01: each filter returns its own `limit` newest matches. An event the
// first filter sent counts toward the second's limit: it is not sent again,
// and no older event is sent in its place.
TEST_F(OpenRelayTest, EachFilterKeepsItsOwnLimitAcrossOverlappingFilters) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  auto events = publish_series(*c, key, 4, unix_now() - 100);  // oldest first
  const std::string author = R"("authors":[")" + hex(key) + R"("])";
  ReqResult r = c->req("limits", R"({"kinds":[1],"limit":1,)" + author + R"(},{"kinds":[1],"limit":2,)" + author + "}");
  ASSERT_TRUE(r.eose) << why(r);
  // Filter 1: the newest. Filter 2: the two newest, of which the newest was sent already.
  EXPECT_EQ(ids_of(r.events), (std::vector<std::string>{events[3].id_hex(), events[2].id_hex()}));
}

TEST_F(OpenRelayTest, EmptyKindsListMatchesNothing) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  publish_series(*c, key, 2, unix_now() - 100);
  const std::string author = R"("authors":[")" + hex(key) + R"("])";
  ReqResult r = c->req("none", R"({"kinds":[],)" + author + "}");
  EXPECT_TRUE(r.eose) << why(r);
  EXPECT_FALSE(r.closed.has_value());
  EXPECT_TRUE(r.events.empty());
  // Empty ids, authors and tag-value lists match nothing too.
  for (const std::string& filter : {R"({"kinds":[1],"ids":[],)" + author + "}", std::string(R"({"kinds":[1],"authors":[]})"),
                                    R"({"kinds":[1],"#t":[],)" + author + "}"}) {
    SCOPED_TRACE(filter);
    ReqResult empty = c->req("empty", filter);
    EXPECT_TRUE(empty.eose) << why(empty);
    EXPECT_TRUE(empty.events.empty());
  }
  // ... and never anything live either.
  ASSERT_TRUE(c->publish(make_event(key, 1, "live")).accepted);
  EXPECT_FALSE(c->wait_for([](const RelayMessage& m) { return m.type == "EVENT"; }, kQuietMs));
}

TEST_F(OpenRelayTest, ReqWithZeroFiltersGetsImmediateEose) {
  auto c = authed_client(relay(), engine::generate_keypair());
  ASSERT_TRUE(c);
  ReqResult r = c->req("zero", "");
  EXPECT_TRUE(r.eose) << why(r);
  EXPECT_TRUE(r.events.empty());
}

TEST_F(OpenRelayTest, ReqAtTheSubIdAndFilterCountLimitsIsServed) {
  auto c = authed_client(relay(), engine::generate_keypair());
  ASSERT_TRUE(c);
  std::string ten;
  for (int i = 0; i < 10; ++i) ten += std::string(i ? "," : "") + R"({"kinds":[1],"limit":0})";
  ReqResult r = c->req(std::string(256, 's'), ten);
  EXPECT_TRUE(r.eose) << why(r);
}

TEST_F(OpenRelayTest, TagFilterMatchesEventsWithThatTagValue) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  auto events = publish_series(*c, key, 4, unix_now() - 100);
  ReqResult r = c->req("t", R"({"kinds":[1],"authors":[")" + hex(key) + R"("],"#t":["odd"]})");
  ASSERT_TRUE(r.eose) << why(r);
  EXPECT_EQ(ids_of(r.events), (std::vector<std::string>{events[3].id_hex(), events[1].id_hex()}));
  ReqResult none = c->req("t2", R"({"kinds":[1],"authors":[")" + hex(key) + R"("],"#t":["ODD"]})");
  ASSERT_TRUE(none.eose) << why(none);
  EXPECT_TRUE(none.events.empty()) << "tag values match case-sensitively";
  ReqResult multi = c->req("t3", R"({"kinds":[1],"authors":[")" + hex(key) + R"("],"#ab":["zzz"]})");
  ASSERT_TRUE(multi.eose) << why(multi);
  EXPECT_EQ(multi.events.size(), 4u) << "keys of two or more letters after # are ignored";
}

// A long value list matches as a short one does (the PostgreSQL store turns
// one into a single array parameter, the other into indexed containments).
TEST_F(OpenRelayTest, TagFilterWithHundredsOfValuesMatchesTheSameEvents) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  auto events = publish_series(*c, key, 4, unix_now() - 100);
  std::string values = R"("odd","quote\"d")";
  for (int i = 0; i < 300; ++i) values += ",\"v" + std::to_string(i) + '"';
  ReqResult r = c->req("many", R"({"kinds":[1],"authors":[")" + hex(key) + R"("],"#t":[)" + values + "]}");
  ASSERT_TRUE(r.eose) << why(r);
  EXPECT_EQ(ids_of(r.events), (std::vector<std::string>{events[3].id_hex(), events[1].id_hex()}));
}

TEST_F(OpenRelayTest, SinceAndUntilAreInclusive) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  const uint64_t base = unix_now() - 100;
  publish_series(*c, key, 5, base);
  ReqResult r = c->req("window", R"({"kinds":[1],"authors":[")" + hex(key) + R"("],"since":)" +
                                     std::to_string(base + 1) + R"(,"until":)" + std::to_string(base + 3) + "}");
  ASSERT_TRUE(r.eose) << why(r);
  EXPECT_EQ(times_of(r.events), (std::vector<uint64_t>{base + 3, base + 2, base + 1}));
}

TEST_F(OpenRelayTest, LimitReturnsTheNewestEvents) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  const uint64_t base = unix_now() - 100;
  publish_series(*c, key, 5, base);
  ReqResult r = c->req("lim", R"({"kinds":[1],"authors":[")" + hex(key) + R"("],"limit":2})");
  ASSERT_TRUE(r.eose) << why(r);
  EXPECT_EQ(times_of(r.events), (std::vector<uint64_t>{base + 4, base + 3}));
  ReqResult zero = c->req("lim0", R"({"kinds":[1],"authors":[")" + hex(key) + R"("],"limit":0})");
  ASSERT_TRUE(zero.eose) << why(zero);
  EXPECT_TRUE(zero.events.empty());
}

TEST_F(OpenRelayTest, HistoryIsNewestFirstThenLowestIdFirst) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  const uint64_t base = unix_now() - 100;
  // Published out of order; two share the newest timestamp.
  Event e1 = make_event(key, 1, "1", {}, base + 1);
  Event e3 = make_event(key, 1, "3", {}, base + 3);
  Event e2 = make_event(key, 1, "2", {}, base + 2);
  Event t1 = make_event(key, 1, "tie a", {}, base + 5);
  Event t2 = make_event(key, 1, "tie b", {}, base + 5);
  for (const Event* e : {&e1, &e3, &t1, &e2, &t2}) ASSERT_TRUE(c->publish(*e).accepted);
  const Event& lo = t1.id_hex() < t2.id_hex() ? t1 : t2;
  const Event& hi = t1.id_hex() < t2.id_hex() ? t2 : t1;
  ReqResult r = c->req("order", R"({"kinds":[1],"authors":[")" + hex(key) + R"("]})");
  ASSERT_TRUE(r.eose) << why(r);
  EXPECT_EQ(ids_of(r.events), (std::vector<std::string>{lo.id_hex(), hi.id_hex(), e3.id_hex(), e2.id_hex(),
                                                         e1.id_hex()}));
}

TEST_F(OpenRelayTest, FiltersInOneReqAreOredWithoutDuplicates) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  auto events = publish_series(*c, key, 3, unix_now() - 100);
  const std::string author = R"("authors":[")" + hex(key) + R"("])";
  ReqResult r = c->req("or", R"({"kinds":[1],)" + author + R"(,"#t":["even"]},{"kinds":[1],)" + author +
                                 R"(,"ids":[")" + events[0].id_hex() + R"(",")" + events[1].id_hex() + R"("]})");
  ASSERT_TRUE(r.eose) << why(r);
  std::vector<std::string> got = ids_of(r.events);
  std::sort(got.begin(), got.end());
  std::vector<std::string> want = ids_of(events);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
}

// --- Live delivery, CLOSE, COUNT ---------------------------------------------------

TEST_F(OpenRelayTest, SubscriberReceivesLiveEventsUntilClose) {
  Keypair author = engine::generate_keypair();
  auto pub = authed_client(relay(), author);
  auto sub = authed_client(relay(), engine::generate_keypair());
  ASSERT_TRUE(pub && sub);
  ReqResult r = sub->req("live", R"({"kinds":[1],"authors":[")" + hex(author) + R"("]})");
  ASSERT_TRUE(r.eose) << why(r);
  Event e = make_event(author, 1, "live one");
  ASSERT_TRUE(pub->publish(e).accepted);
  auto live = sub->wait_for([](const RelayMessage& m) { return m.type == "EVENT" && m.id == "live"; });
  ASSERT_TRUE(live) << "no live EVENT";
  EXPECT_EQ(live->event.id, e.id);

  ASSERT_TRUE(sub->send(R"(["CLOSE","live"])"));
  auto closed = sub->wait_for([](const RelayMessage& m) { return m.type == "CLOSED"; });
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->raw, R"(["CLOSED","live",""])");
  ASSERT_TRUE(pub->publish(make_event(author, 1, "after close")).accepted);
  EXPECT_FALSE(sub->wait_for([](const RelayMessage& m) { return m.type == "EVENT"; }, kQuietMs));
}

// An event acknowledged before a REQ is in its history, and its live copy may
// still be on its way to the subscriber's loop (the store writer hands each
// loop its batch in turn): it must not arrive a second time. Subscribers on
// several connections cover the loops; a late marker that every subscription
// matches arrives after any duplicate would have.
TEST_F(OpenRelayTest, AnEventAcknowledgedBeforeAReqReachesItOnce) {
  Keypair author = engine::generate_keypair();
  auto pub = authed_client(relay(), author);
  ASSERT_TRUE(pub);
  std::vector<std::unique_ptr<NostrClient>> subs;
  for (int i = 0; i < 4; ++i) {
    subs.push_back(authed_client(relay(), engine::generate_keypair()));
    ASSERT_TRUE(subs.back());
  }
  constexpr int kRounds = 50;
  std::vector<std::vector<std::string>> tags(1);
  for (int r = 0; r < kRounds; ++r) {
    const std::string round = "once-" + std::to_string(r);
    tags.push_back({"t", round});
    Event e = make_event(author, 1, round, {{"t", round}});
    ASSERT_TRUE(pub->publish(e).accepted);
    for (auto& sub : subs) {  // at once, with nothing read in between
      ASSERT_TRUE(sub->send(R"(["REQ",")" + round + R"(",{"kinds":[1],"authors":[")" + hex(author) +
                            R"("],"#t":[")" + round + R"("]}])"));
    }
  }
  tags.erase(tags.begin());
  Event marker = make_event(author, 1, "marker", tags);
  ASSERT_TRUE(pub->publish(marker).accepted);
  for (size_t i = 0; i < subs.size(); ++i) {
    std::map<std::string, int> copies;  // of each round's event, by sub id
    // Every subscription's history too: a last REQ read after the marker's
    // fan-out replays the marker, newest first, ahead of its round's event.
    int markers = 0, eoses = 0;
    while (markers < kRounds || eoses < kRounds) {
      auto m = subs[i]->next_message();
      ASSERT_TRUE(m) << "subscriber " << i << ": " << markers << " markers and " << eoses << " EOSEs of " << kRounds;
      eoses += m->type == "EOSE";
      if (m->type != "EVENT") continue;
      if (m->event.id == marker.id) ++markers;
      else ++copies[m->id];
    }
    for (int r = 0; r < kRounds; ++r) EXPECT_EQ(copies["once-" + std::to_string(r)], 1) << "subscriber " << i << ", round " << r;
  }
}

// A reused sub id replaces its subscription; when the new REQ is refused, the
// CLOSED for that id must leave nothing behind that still delivers.
TEST_F(OpenRelayTest, RefusedReplacementEndsTheOldSubscription) {
  Keypair author = engine::generate_keypair();
  auto pub = authed_client(relay(), author);
  auto sub = authed_client(relay(), engine::generate_keypair());
  ASSERT_TRUE(pub && sub);
  ASSERT_TRUE(sub->req("x", R"({"kinds":[1],"authors":[")" + hex(author) + R"("]})").eose);
  // A channel nobody created reads like one the caller is not a member of: refused.
  ReqResult refused = sub->req("x", R"({"kinds":[9],"#h":["5f0c2a4e-7d1b-4c3a-9e8f-0a1b2c3d4e5f"]})");
  ASSERT_TRUE(refused.closed.has_value());
  EXPECT_EQ(*refused.closed, "restricted: not a channel member");
  ASSERT_TRUE(pub->publish(make_event(author, 1, "after the refused replacement")).accepted);
  EXPECT_FALSE(sub->wait_for([](const RelayMessage& m) { return m.type == "EVENT"; }, kQuietMs));
}

TEST_F(OpenRelayTest, CountReturnsTheNumberOfDistinctMatchingEvents) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  auto events = publish_series(*c, key, 3, unix_now() - 100);
  const std::string filter = R"({"kinds":[1],"authors":[")" + hex(key) + R"("]})";
  auto reply = c->count("n", filter);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->type, "COUNT");
  EXPECT_EQ(reply->raw, R"(["COUNT","n",{"count":3}])");
  // Two overlapping filters count each event once.
  auto both = c->count("n2", filter + "," + filter);
  ASSERT_TRUE(both);
  EXPECT_EQ(both->count, 3);
}

// --- p-gated kinds -----------------------------------------------------------------

// The p-gate narrows (a Buzz decision, docs/channels.md): a filter that could
// match a gated kind is answered, without the gated events addressed to others,
// in history, live and COUNT alike. docs/reference/protocol.md §9.3 refused the whole REQ.
TEST_F(OpenRelayTest, GiftWrapsAddressedToOthersAreLeftOutNotRefused) {
  Keypair me = engine::generate_keypair(), them = engine::generate_keypair();
  auto c = authed_client(relay(), me);
  auto sender = authed_client(relay(), engine::generate_keypair());
  ASSERT_TRUE(c && sender);
  // One wrap to me, one to them; the first filter below also matches my own note.
  Event to_me = make_event(engine::generate_keypair(), 1059, "for me", {{"p", hex(me)}});
  Event to_them = make_event(engine::generate_keypair(), 1059, "for them", {{"p", hex(them)}});
  ASSERT_TRUE(sender->publish(to_me).accepted);
  ASSERT_TRUE(sender->publish(to_them).accepted);
  Event note = make_event(me, 1, "my profile feed");
  ASSERT_TRUE(c->publish(note).accepted);
  const std::string other = hex(them);
  for (const std::string& filter : {std::string(R"({"kinds":[1059]})"), R"({"kinds":[1059],"#p":[")" + other + R"("]})",
                                   R"({"kinds":[1059],"#p":[")" + hex(me) + R"(",")" + other + R"("]})",
                                   R"({"ids":[")" + to_them.id_hex() + R"("]})", std::string("{}")}) {
    SCOPED_TRACE(filter);
    ReqResult r = c->req("gated", filter);
    ASSERT_TRUE(r.eose) << why(r);
    const std::vector<std::string> ids = ids_of(r.events);
    EXPECT_EQ(std::count(ids.begin(), ids.end(), to_them.id_hex()), 0);
  }
  // A standard client's profile feed is answered.
  ReqResult feed = c->req("feed", R"({"authors":[")" + hex(me) + R"("]})");
  ASSERT_TRUE(feed.eose) << why(feed);
  EXPECT_EQ(ids_of(feed.events), std::vector<std::string>{note.id_hex()});
  ReqResult own = c->req("mine", R"({"kinds":[1059],"#p":[")" + hex(me) + R"(",")" + other + R"("]})");
  ASSERT_TRUE(own.eose) << why(own);
  EXPECT_EQ(ids_of(own.events), std::vector<std::string>{to_me.id_hex()});
  auto n = c->count("gated-count", R"({"kinds":[1059],"#p":[")" + hex(me) + R"(",")" + other + R"("]})");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->type, "COUNT");
  EXPECT_EQ(n->count, 1);
  // Live: a subscription for every wrap hears only its own.
  ASSERT_TRUE(c->req("live-gated", R"({"kinds":[1059]})").eose);
  Event later_them = make_event(engine::generate_keypair(), 1059, "later, for them", {{"p", other}});
  Event later_me = make_event(engine::generate_keypair(), 1059, "later, for me", {{"p", hex(me)}});
  ASSERT_TRUE(sender->publish(later_them).accepted);
  ASSERT_TRUE(sender->publish(later_me).accepted);
  auto live = c->wait_for([](const RelayMessage& m) { return m.type == "EVENT" && m.id == "live-gated"; });
  ASSERT_TRUE(live) << "no live EVENT";
  EXPECT_EQ(live->event.id, later_me.id);
}

TEST_F(OpenRelayTest, GiftWrapFromThrowawayKeyReachesOnlyItsRecipient) {
  Keypair sender = engine::generate_keypair(), recipient = engine::generate_keypair();
  auto cs = authed_client(relay(), sender);
  auto cr = authed_client(relay(), recipient);
  ASSERT_TRUE(cs && cr);
  Event wrap = make_event(engine::generate_keypair(), 1059, "ciphertext", {{"p", hex(recipient)}});
  OkReply ok = cs->publish(wrap);
  EXPECT_TRUE(ok.accepted) << ok.reason;
  ReqResult r = cr->req("inbox", R"({"kinds":[1059],"#p":[")" + hex(recipient) + R"("]})");
  ASSERT_TRUE(r.eose) << why(r);
  EXPECT_EQ(ids_of(r.events), (std::vector<std::string>{wrap.id_hex()}));
}

}  // namespace
}  // namespace buzz::test
