// Read markers and delivery receipts (docs/reference/rest-api.md "Receipts",
// docs/reference/kinds.md): a member's marker (kind 30078, d buzz:read:<channel>)
// is hers alone; a message's receipt ("delivered to N of M, read by K") is its
// author's and the channel's admins' and owners', over REST and as kind 28990.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>
#include <thread>

#include "tests/e2e/channel_fixture.h"

namespace buzz::test {
namespace {

using engine::Event;

class ReceiptTest : public ChannelTest {
 protected:
  static Event marker(Peer& p, const std::string& channel, uint64_t read_until) {
    return make_event(p.key, 30078, "", {{"d", "buzz:read:" + channel}, {"read_until", std::to_string(read_until)}});
  }
  static HttpReply receipt(Peer& p, const Event& m) { return rest_get(p.key, "/api/messages/" + m.id_hex() + "/receipts"); }
  // The receipt once `want` holds of it (the deliveries reach the log within
  // a quarter of a second of the fan-out), or the last one read.
  static HttpReply receipt_when(Peer& p, const Event& m, const std::function<bool(const HttpReply&)>& want) {
    HttpReply r;
    for (int i = 0; i < 100; ++i) {
      r = receipt(p, m);
      if (want(r)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return r;
  }
  static int64_t field(const HttpReply& r, const char* key) {
    simdjson::dom::parser parser;
    int64_t v = -1;
    if (parser.parse(r.body)[key].get_int64().get(v)) return -1;
    return v;
  }
  // The kind-28990 events a REQ for these messages' receipts answers.
  static std::vector<Event> receipt_events(Peer& p, const std::string& sub, const std::vector<std::string>& ids) {
    std::string list;
    for (const std::string& id : ids) list += (list.empty() ? "\"" : ",\"") + id + "\"";
    return read(p, sub, R"({"kinds":[28990],"#e":[)" + list + "]}");
  }
};

TEST_F(ReceiptTest, AReadMarkerIsReadableOnlyByItsAuthor) {
  Peer a = user(), b = user();
  ASSERT_TRUE(a.c && b.c);
  const std::string ch = create(a, "open");
  subscribe(b, "markers", R"({"kinds":[30078]})");
  Event m = marker(a, ch, unix_now());
  ASSERT_TRUE(a->publish(m).accepted);
  EXPECT_EQ(event_on(b, "markers"), "") << "another member's live subscription got the marker";
  const std::string by_author = R"({"kinds":[30078],"authors":[")" + a.hex + R"("]})";
  EXPECT_TRUE(read(b, "hist", by_author).empty());
  EXPECT_TRUE(read(b, "byid", ids_filter(m.id_hex())).empty());
  auto counted = b->count("n", by_author);
  ASSERT_TRUE(counted);
  EXPECT_NE(counted->raw.find("\"count\":0"), std::string::npos) << counted->raw;
  EXPECT_EQ(rest_get(b.key, "/api/events/" + m.id_hex()).status, 404);
  // Its author reads it everywhere.
  EXPECT_TRUE(contains_id(read(a, "own", by_author), m.id_hex()));
  EXPECT_EQ(rest_get(a.key, "/api/events/" + m.id_hex()).status, 200);
}

TEST_F(ReceiptTest, TheAuthorSeesDeliveredAndRead) {
  Peer a = user(), b = user(), c = user(), d = user();
  ASSERT_TRUE(a.c && b.c && c.c && d.c);
  const std::string ch = create(a, "private");
  for (Peer* p : {&b, &c, &d}) add(a, ch, *p);
  subscribe(b, "live", h_filter(ch));
  subscribe(c, "live", h_filter(ch));  // d is a member with no subscription: not delivered
  Peer b2 = another_connection(b);  // a second session of b's counts once
  subscribe(b2, "live", h_filter(ch));
  Event m = post(a, ch);
  ASSERT_TRUE(receives(b, "live", m.id_hex()) && receives(c, "live", m.id_hex()));

  HttpReply r = receipt_when(a, m, [](const HttpReply& r) { return field(r, "delivered") == 2; });
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(field(r, "members"), 3);
  EXPECT_EQ(field(r, "delivered"), 2);
  EXPECT_EQ(field(r, "read"), 0);
  EXPECT_EQ(json_str(r.body, "event_id"), m.id_hex());
  EXPECT_EQ(json_str(r.body, "channel_id"), ch);

  // b reads up to the message, d (never sent it live) later from history; c read only before it.
  ASSERT_TRUE(b->publish(marker(b, ch, m.created_at)).accepted);
  ASSERT_TRUE(d->publish(marker(d, ch, m.created_at + 5)).accepted);
  ASSERT_TRUE(c->publish(marker(c, ch, m.created_at - 1)).accepted);
  r = receipt(a, m);
  EXPECT_EQ(field(r, "read"), 2) << r.body;
  EXPECT_EQ(field(r, "delivered"), 2) << r.body;

  // Recorded, and nothing dropped (docs/limits.md, "Deliveries").
  const std::string metrics = http_get(relay().port(), "/metrics").body;
  EXPECT_GE(metric_value(metrics, "buzz_delivery_records_written_total"), 2) << metrics;
  EXPECT_EQ(metric_value(metrics, "buzz_delivery_records_dropped_total{reason=\"buffer_full\"}"), 0);
  EXPECT_EQ(metric_value(metrics, "buzz_delivery_records_dropped_total{reason=\"write_failed\"}"), 0);

  // The same as the author's kind, signed by the relay.
  std::vector<Event> got = receipt_events(a, "rcpt", {m.id_hex()});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].kind, 28990);
  EXPECT_EQ(engine::to_hex(got[0].pubkey), relay_pubkey());
  EXPECT_EQ(got[0].first_tag_value("e"), m.id_hex());
  EXPECT_EQ(got[0].first_tag_value("p"), a.hex);
  EXPECT_EQ(got[0].first_tag_value("h"), ch);
  EXPECT_NE(got[0].content.find("\"delivered\":2"), std::string::npos) << got[0].content;
  EXPECT_NE(got[0].content.find("\"read\":2"), std::string::npos) << got[0].content;
  // No client may send the kind.
  expect_refused(a->publish(make_event(a.key, 28990, "{}", {{"e", m.id_hex()}})), "restricted: unknown event kind");
}

TEST_F(ReceiptTest, OnlyTheAuthorAndTheChannelsAdminsSeeAReceipt) {
  Peer a = user(), b = user(), admin = user(), outsider = user();
  ASSERT_TRUE(a.c && b.c && admin.c && outsider.c);
  const std::string open = create(a, "open"), closed = create(a, "private");
  for (const std::string& ch : {open, closed}) {
    add(a, ch, b);
    add(a, ch, admin, "admin");
  }
  Event in_open = post(a, open), in_closed = post(a, closed);
  const std::string forbidden = "forbidden: only the author or a channel admin sees receipts";
  // Another member, of either channel: refused, and the kind answers nothing.
  for (const Event* m : {&in_open, &in_closed}) {
    HttpReply r = receipt(b, *m);
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_EQ(json_str(r.body, "error"), forbidden);
  }
  EXPECT_TRUE(receipt_events(b, "member", {in_open.id_hex(), in_closed.id_hex()}).empty());
  // A non-member: of the open channel, which it may read, refused; of the
  // private one, as if the message did not exist.
  EXPECT_EQ(receipt(outsider, in_open).status, 403);
  HttpReply hidden = receipt(outsider, in_closed);
  EXPECT_EQ(hidden.status, 404) << hidden.body;
  EXPECT_EQ(json_str(hidden.body, "error"), "event not found");
  EXPECT_TRUE(receipt_events(outsider, "outsider", {in_open.id_hex(), in_closed.id_hex()}).empty());
  // The channel's admin sees both, as does the author.
  for (Peer* who : {&admin, &a}) {
    for (const Event* m : {&in_open, &in_closed}) EXPECT_EQ(receipt(*who, *m).status, 200);
    EXPECT_EQ(receipt_events(*who, "allowed", {in_open.id_hex(), in_closed.id_hex()}).size(), 2u);
  }
  // A removed member loses what membership gave: the private channel's message is gone.
  ASSERT_TRUE(remove(a, closed, admin.hex).accepted);
  EXPECT_EQ(receipt(admin, in_closed).status, 404);
  EXPECT_EQ(rest_get(a.key, "/api/messages/zz/receipts").status, 400);
}

// A page of 100 messages' receipts, as one kind-28990 REQ: each message the
// caller may see answered once, with its own counts; a
// deleted one, one of a channel the caller is not in and an unknown id answer
// nothing. The time of the read is recorded (receipt_page_ms) to compare stores.
TEST_F(ReceiptTest, APageOfReceiptsAnswersEachMessageOnce) {
  Peer a = user(), b = user(), c = user(), other = user();
  ASSERT_TRUE(a.c && b.c && c.c && other.c);
  const std::string ch = create(a, "private"), elsewhere = create(other, "private");
  add(a, ch, b);
  add(a, ch, c);  // c has no live subscription: never delivered
  subscribe(b, "live", h_filter(ch));
  std::vector<std::string> ids;
  std::vector<Event> mine;
  for (int i = 0; i < 96; ++i) mine.push_back(post(a, ch));
  const Event by_b = post(b, ch), gone = post(a, ch), hidden = post(other, elsewhere);
  ASSERT_TRUE(a->publish(make_event(a.key, 5, "", {{"e", gone.id_hex()}, {"h", ch}})).accepted);
  // Asked interleaved, not newest first.
  for (size_t i = 0; i < mine.size(); i += 2) ids.push_back(mine[i].id_hex());
  ids.push_back(gone.id_hex());
  ids.push_back(by_b.id_hex());
  ids.push_back(hidden.id_hex());
  ids.push_back(std::string(64, 'a'));
  for (size_t i = 1; i < mine.size(); i += 2) ids.push_back(mine[i].id_hex());
  ASSERT_EQ(ids.size(), 100u);
  ASSERT_TRUE(c->publish(marker(c, ch, by_b.created_at)).accepted);
  ASSERT_TRUE(receives(b, "live", mine.back().id_hex()));

  auto delivered_to_b = [](const std::vector<Event>& got) {
    return std::count_if(got.begin(), got.end(), [](const Event& e) {
      return e.content.find("\"delivered\":1") != std::string::npos;
    });
  };
  std::vector<Event> got;
  for (int i = 0; i < 100; ++i) {  // the deliveries reach the log within a quarter of a second
    got = receipt_events(a, "page" + std::to_string(i), ids);
    if (delivered_to_b(got) == 96) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::set<std::string> expected;
  for (const std::string& id : ids) {
    if (id != gone.id_hex() && id != hidden.id_hex() && id != std::string(64, 'a')) expected.insert(id);
  }
  ASSERT_EQ(got.size(), expected.size());
  std::set<std::string> answered;
  for (const Event& r : got) {
    const std::string id(r.first_tag_value("e"));
    EXPECT_TRUE(expected.count(id) && answered.insert(id).second) << id << " unasked or answered twice";
    const bool hers = id == by_b.id_hex();
    EXPECT_EQ(r.first_tag_value("p"), hers ? b.hex : a.hex);
    // Members but the author: b and c for a's, a and c for b's; b got a's live, nobody b's; c read them all.
    EXPECT_EQ(r.content, R"({"channel_id":")" + ch + R"(","delivered":)" + (hers ? "0" : "1") + R"(,"event_id":")" + id +
                             R"(","members":2,"read":1})");
  }

  // The read's time, the best of five (the page as the web client asks it).
  int64_t best_us = INT64_MAX;
  for (int i = 0; i < 5; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(receipt_events(a, "timed" + std::to_string(i), ids).size(), expected.size());
    best_us = std::min<int64_t>(best_us, std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count());
  }
  RecordProperty("receipt_page_us", std::to_string(best_us));
  std::printf("receipt page of 100 messages: %lld us\n", static_cast<long long>(best_us));
}

}  // namespace
}  // namespace buzz::test
