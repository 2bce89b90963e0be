// End-to-end tests of the wire limits (frame size, subscriptions, filter
// values, history size) and of malformed client messages, each answered with
// one NOTICE while the connection, and every other one, carries on.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "engine/canonical.h"
#include "engine/event.h"
#include "engine/hex.h"
#include "engine/signature.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/open_relay_fixture.h"
#include "tests/e2e/relay_process.h"
#include "tools/client/ws_client.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;

constexpr size_t kMaxMessage = 131072;            // max-message-bytes' default
constexpr size_t kMaxRead = kMaxMessage * 3 / 2;  // read from an authenticated client, to be refused
const char kParseNotice[] = "invalid message: Invalid message format: ";

// The event's JSON object with some fields replaced by raw JSON values, or
// dropped when the value is empty. Fields are written in NIP-01 order.
std::string event_json_with(const Event& e,
                            const std::vector<std::pair<std::string, std::string>>& changes) {
  std::string tags;
  engine::append_json_tags(tags, e.tags);
  std::vector<std::pair<std::string, std::string>> fields = {
      {"id", json_quote(e.id_hex())},
      {"pubkey", json_quote(e.pubkey_hex())},
      {"created_at", std::to_string(e.created_at)},
      {"kind", std::to_string(e.kind)},
      {"tags", tags},
      {"content", json_quote(e.content)},
      {"sig", json_quote(engine::to_hex(e.sig))}};
  for (const auto& [name, value] : changes) {
    for (auto& f : fields) {
      if (f.first == name) f.second = value;
    }
  }
  std::string out = "{";
  for (const auto& [name, value] : fields) {
    if (value.empty()) continue;
    if (out.size() > 1) out += ",";
    out += json_quote(name) + ":" + value;
  }
  return out + "}";
}

// A kind-1 event whose ["EVENT", ...] frame is exactly frame_size bytes.
Event event_with_frame_size(const Keypair& key, size_t frame_size) {
  const uint64_t t = unix_now();
  const size_t overhead = std::string("[\"EVENT\",]").size() + make_event(key, 1, "", {}, t).raw.size();
  return make_event(key, 1, std::string(frame_size - overhead, 'x'), {}, t);
}

// Reads whatever else arrives within kQuietMs.
std::vector<RelayMessage> drain(NostrClient& c) {
  std::vector<RelayMessage> out;
  while (auto m = c.next_message(kQuietMs)) out.push_back(std::move(*m));
  return out;
}

// --- Limits ------------------------------------------------------------------------

TEST_F(OpenRelayTest, MessageOf131072BytesIsAccepted) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  Event fits = event_with_frame_size(key, kMaxMessage);
  ASSERT_EQ(("[\"EVENT\"," + fits.raw + "]").size(), kMaxMessage);
  OkReply ok = c->publish(fits);
  EXPECT_TRUE(ok.accepted) << (ok.received ? ok.reason : "no OK");
  ReqResult r = c->req("big", R"({"ids":[")" + fits.id_hex() + R"("]})");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].content, fits.content);
}

// Past the limit, an authenticated client's message is still read up to half
// as large again and refused in its own words; the connection carries on
// (docs/limits.md, "A message past the limit").
TEST_F(OpenRelayTest, LargerMessageIsRefusedInWordsUpToHalfAsLargeAgain) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  for (size_t size : {kMaxMessage + 1, kMaxRead}) {
    SCOPED_TRACE(size);
    Event e = event_with_frame_size(key, size);
    OkReply ok = c->publish(e);
    ASSERT_TRUE(ok.received) << "no OK; closed " << c->ws().closed() << " with " << c->ws().close_code();
    EXPECT_FALSE(ok.accepted);
    EXPECT_EQ(ok.reason, "invalid: message exceeds maximum size of 131072 bytes (got " + std::to_string(size) + ")");
    ReqResult r = c->req("gone", R"({"ids":[")" + e.id_hex() + R"("]})");
    EXPECT_TRUE(r.eose);
    EXPECT_TRUE(r.events.empty()) << "an oversized event was stored";
  }
  // A REQ is refused the same way, with its own CLOSED.
  std::string filter = R"({"authors":[)";
  while (filter.size() < kMaxMessage) filter += "\"" + engine::to_hex(engine::generate_keypair().pubkey) + "\",";
  filter.back() = ']';
  ASSERT_TRUE(c->send(R"(["REQ","wide",)" + filter + "}]"));
  auto closed = c->wait_for([](const RelayMessage& m) { return m.type == "CLOSED" && m.id == "wide"; });
  ASSERT_TRUE(closed);
  EXPECT_NE(closed->raw.find("invalid: message exceeds maximum size of 131072 bytes"), std::string::npos) << closed->raw;
  EXPECT_TRUE(c->publish(make_event(key, 1, "still here")).accepted);

  Event too_big = event_with_frame_size(key, kMaxRead + 1);
  ASSERT_TRUE(c->send("[\"EVENT\"," + too_big.raw + "]"));
  auto reply = c->next_message(kReplyTimeoutMs);
  EXPECT_FALSE(reply) << "got a reply to a frame past what is read: " << reply->raw;
  EXPECT_EQ(c->close_code_within(), 1009);
}

// A fragmented message is held to the same limits as a whole one.
TEST_F(OpenRelayTest, FragmentedMessageIsHeldToTheSameLimits) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  auto send_in_pieces = [&](const std::string& text) {
    const size_t piece = 40000;
    bool ok = c->ws().send_frame(net::ws::Opcode::kText, text.substr(0, piece), false);
    for (size_t at = piece; ok && at < text.size(); at += piece) {
      ok = c->ws().send_frame(net::ws::Opcode::kContinuation, text.substr(at, piece), at + piece >= text.size());
    }
    return ok;
  };
  Event fits = event_with_frame_size(key, kMaxMessage);
  ASSERT_TRUE(send_in_pieces("[\"EVENT\"," + fits.raw + "]"));
  OkReply ok = c->wait_ok(fits.id_hex());
  EXPECT_TRUE(ok.accepted) << (ok.received ? ok.reason : "no OK");
  Event over = event_with_frame_size(key, kMaxMessage + 1);
  ASSERT_TRUE(send_in_pieces("[\"EVENT\"," + over.raw + "]"));
  ok = c->wait_ok(over.id_hex());
  EXPECT_FALSE(ok.accepted);
  EXPECT_EQ(ok.reason, "invalid: message exceeds maximum size of 131072 bytes (got 131073)");
  send_in_pieces("[\"EVENT\"," + event_with_frame_size(key, kMaxRead + 1).raw + "]");
  EXPECT_EQ(c->close_code_within(), 1009);
}

// Before AUTH nothing past the limit is read: the memory a connection that
// has not authenticated may make the relay hold is the limit's.
TEST_F(OpenRelayTest, LargerMessageBeforeAuthClosesWith1009) {
  auto c = connect_client(relay());
  auto bystander = authed_client(relay(), engine::generate_keypair());
  ASSERT_TRUE(c && bystander);
  Event e = event_with_frame_size(engine::generate_keypair(), kMaxMessage + 1);
  ASSERT_TRUE(c->send("[\"EVENT\"," + e.raw + "]"));
  auto reply = c->next_message(kReplyTimeoutMs);
  EXPECT_FALSE(reply) << "got a reply to an oversized frame: " << reply->raw;
  EXPECT_EQ(c->close_code_within(), 1009);

  ReqResult r = bystander->req("alive", R"({"kinds":[1],"limit":1})");
  EXPECT_TRUE(r.eose) << "another connection stopped working";
}

// The limit is the operator's (max-message-bytes): NIP-11 states it, and the
// refusals name it.
TEST(MessageLimit, ConfiguredLimitIsStatedAndHeld) {
  RelayOptions o = open_relay_options();
  o.extra_args.insert(o.extra_args.end(), {"--rate-limits", "false", "--max-message-bytes", "65536"});
  auto relay = start_relay(o);
  ASSERT_TRUE(relay);
  HttpReply info = http_get(relay->port(), "/", "application/nostr+json");
  EXPECT_NE(info.body.find(R"("max_message_length":65536)"), std::string::npos) << info.body;
  Keypair key = engine::generate_keypair();
  auto c = authed_client(*relay, key);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->publish(event_with_frame_size(key, 65536)).accepted);
  OkReply ok = c->publish(event_with_frame_size(key, 65537));
  EXPECT_FALSE(ok.accepted);
  EXPECT_EQ(ok.reason, "invalid: message exceeds maximum size of 65536 bytes (got 65537)");
  ASSERT_TRUE(c->send("[\"EVENT\"," + event_with_frame_size(key, 65536 * 3 / 2 + 1).raw + "]"));
  EXPECT_EQ(c->close_code_within(), 1009);
}

// RFC 6455 §7.4: a close code a peer may send is echoed; a reserved or local
// code (1005, 1006, 1015), half a code or a reason that is not UTF-8 is a
// protocol error, answered 1002, never echoed onto the wire.
TEST_F(OpenRelayTest, ClientCloseIsEchoedAndAMalformedOneIsAnswered1002) {
  struct Case {
    std::string payload;
    uint16_t reply;
  };
  for (const Case& tc : {Case{net::ws::close_payload(4001, "done"), 4001}, Case{"", 1000},
                         Case{net::ws::close_payload(1005), 1002}, Case{net::ws::close_payload(1015), 1002},
                         Case{std::string("\x03", 1), 1002}, Case{net::ws::close_payload(1000, "\xff"), 1002}}) {
    SCOPED_TRACE("close payload of " + std::to_string(tc.payload.size()) + " bytes, expecting " + std::to_string(tc.reply));
    auto c = connect_client(relay());
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->ws().send_frame(net::ws::Opcode::kClose, tc.payload));
    while (c->ws().recv(kReplyTimeoutMs)) {
    }
    EXPECT_TRUE(c->ws().closed());
    EXPECT_EQ(c->ws().close_code(), tc.reply);
  }
}

TEST_F(OpenRelayTest, SubscriptionBeyond1024IsClosed) {
  auto c = authed_client(relay(), engine::generate_keypair());
  ASSERT_TRUE(c);
  constexpr int kCap = 1024, kBatch = 128;
  for (int start = 0; start < kCap; start += kBatch) {
    for (int i = start; i < start + kBatch; ++i) {
      ASSERT_TRUE(c->send(R"(["REQ","s)" + std::to_string(i) + R"(",{"kinds":[]}])"));
    }
    for (int i = start; i < start + kBatch; ++i) {
      const std::string id = "s" + std::to_string(i);
      auto m = c->wait_for([&](const RelayMessage& r) { return r.id == id || r.type == "NOTICE"; });
      ASSERT_TRUE(m) << "no reply for " << id;
      ASSERT_EQ(m->type, "EOSE") << m->raw;
    }
  }
  ReqResult over = c->req("one-too-many", R"({"kinds":[]})");
  ASSERT_TRUE(over.closed.has_value()) << "no CLOSED";
  EXPECT_EQ(*over.closed, "error: too many subscriptions");
  // Reusing an existing id replaces that subscription and is not refused.
  EXPECT_TRUE(c->req("s7", R"({"kinds":[]})").eose);
  // After a CLOSE there is room again.
  ASSERT_TRUE(c->send(R"(["CLOSE","s0"])"));
  ASSERT_TRUE(c->wait_for([](const RelayMessage& m) { return m.type == "CLOSED" && m.id == "s0"; }));
  EXPECT_TRUE(c->req("fits-again", R"({"kinds":[]})").eose);
}

// A filter of `n` distinct #t values (three base-36 characters each, so 10,000
// fit in one 64 KiB frame), offset so that two calls never share a value.
std::string filter_with_tag_values(int n, int offset) {
  std::string values;
  for (int i = offset; i < offset + n; ++i) {
    const char* digits = "0123456789abcdefghijklmnopqrstuvwxyz";
    values += std::string(values.empty() ? "" : ",") + '"' + digits[i / 1296 % 36] + digits[i / 36 % 36] + digits[i % 36] + '"';
  }
  return R"({"kinds":[1],"#t":[)" + values + "]}";
}

// 1,024 subscriptions of 64 KiB filters held ~360 MB for one connection; the
// values a connection's live subscriptions hold are capped at 20,000.
TEST_F(OpenRelayTest, FilterValuesHeldByOneConnectionAreCapped) {
  auto c = authed_client(relay(), engine::generate_keypair());
  ASSERT_TRUE(c);
  const std::string ten_thousand = filter_with_tag_values(9998, 0);  // 9,998 + kind + filter = 10,000 values
  ASSERT_LT(ten_thousand.size(), kMaxMessage - 32);
  EXPECT_TRUE(c->req("a", ten_thousand).eose);
  EXPECT_TRUE(c->req("b", ten_thousand).eose);  // 20,000: the cap exactly
  ReqResult over = c->req("c", R"({"kinds":[1]})");
  ASSERT_TRUE(over.closed.has_value()) << "no CLOSED";
  EXPECT_EQ(*over.closed, "error: too many filter values across this connection's subscriptions (max 20000)");
  // Replacing a subscription gives back what it held first.
  EXPECT_TRUE(c->req("a", filter_with_tag_values(9998, 20000)).eose);
  // So does CLOSE.
  ASSERT_TRUE(c->send(R"(["CLOSE","b"])"));
  ASSERT_TRUE(c->wait_for([](const RelayMessage& m) { return m.type == "CLOSED" && m.id == "b"; }));
  EXPECT_TRUE(c->req("c", R"({"kinds":[1]})").eose);
  // Another connection has its own allowance.
  auto other = authed_client(relay(), engine::generate_keypair());
  ASSERT_TRUE(other);
  EXPECT_TRUE(other->req("a", ten_thousand).eose);
}

// A REQ may ask for up to 10 filters × 500 events, and a client may send
// several REQs at once: the whole history goes out, EOSE after it, and the
// connection stays, although it is far more than BUZZ_SEND_BUFFER (1,000)
// frames queued in one turn of the loop.
TEST_F(OpenRelayTest, HistoryLargerThanTheSendBufferIsDeliveredWhole) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  constexpr int kEvents = 1500;
  publish_bulk(*c, key, kEvents, [](int i) { return std::vector<engine::Tag>{{"t", "g" + std::to_string(i % 3)}}; });
  std::string filters;
  for (int g = 0; g < 3; ++g) {
    filters += std::string(g ? "," : "") + R"({"kinds":[1],"authors":[")" + hex(key) + R"("],"#t":["g)" +
               std::to_string(g) + R"("]})";
  }
  // Two such REQs in one write: 3,000 events before the second EOSE.
  ASSERT_TRUE(c->send(R"(["REQ","a",)" + filters + "]"));
  ReqResult second = c->req("b", filters, 20000);
  ASSERT_TRUE(second.eose) << why(second);
  EXPECT_EQ(second.events.size(), size_t(kEvents));
  EXPECT_TRUE(c->req("after", R"({"kinds":[1],"limit":1})").eose) << "the connection survives";
}

TEST_F(OpenRelayTest, HistoryIsCappedAt500EventsPerFilter) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  constexpr int kEvents = 510;
  const uint64_t newest = unix_now() - 1;
  std::vector<Event> events;
  for (int i = 0; i < kEvents; ++i) {
    events.push_back(make_event(key, 1, "bulk " + std::to_string(i), {}, newest - uint64_t(i)));
    ASSERT_TRUE(c->send("[\"EVENT\"," + events.back().raw + "]"));
  }
  int accepted = 0;
  for (const Event& e : events) {
    OkReply ok = c->wait_ok(e.id_hex(), 10000);
    ASSERT_TRUE(ok.received) << "no OK for event " << accepted;
    accepted += ok.accepted;
  }
  ASSERT_EQ(accepted, kEvents);

  const std::string author = R"("kinds":[1],"authors":[")" + hex(key) + R"("])";
  std::vector<std::string> newest_500;
  for (int i = 0; i < 500; ++i) newest_500.push_back(events[i].id_hex());
  ReqResult big = c->req("big", "{" + author + R"(,"limit":1000})", 10000);
  ASSERT_TRUE(big.eose) << why(big);
  EXPECT_EQ(big.events.size(), 500u);
  EXPECT_EQ(ids_of(big.events), newest_500);
  ReqResult unlimited = c->req("nolimit", "{" + author + "}", 10000);
  ASSERT_TRUE(unlimited.eose) << why(unlimited);
  EXPECT_EQ(unlimited.events.size(), 500u);
  auto n = c->count("all", "{" + author + "}");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->count, kEvents) << "COUNT is not capped";
}

// ---------------------------------------------------------------------------
// Malformed client messages: each gets one NOTICE with the parse-error prefix
// (plus, at most, the OK/CLOSED the C++ decision adds), and neither this
// connection nor another one is affected.

struct MalformedCase {
  std::string name;
  std::function<std::string(const Event& valid)> frame;  // built from a valid signed event
  std::string notice;      // expected NOTICE text (prefix if prefix_only)
  bool prefix_only = false;
  bool binary = false;     // send as a binary frame
};

void PrintTo(const MalformedCase& c, std::ostream* os) { *os << c.name; }

class MalformedInputTest : public ::testing::TestWithParam<MalformedCase> {
 protected:
  static void SetUpTestSuite() { relay_ = start_relay(open_relay_options()); }
  static void TearDownTestSuite() { relay_.reset(); }
  void SetUp() override { ASSERT_NE(relay_, nullptr) << "the relay did not start"; }
  static std::unique_ptr<RelayProcess> relay_;
};

std::unique_ptr<RelayProcess> MalformedInputTest::relay_;

TEST_P(MalformedInputTest, AnsweredWithNoticeAndConnectionSurvives) {
  const MalformedCase& tc = GetParam();
  Keypair key = engine::generate_keypair();
  auto c = authed_client(*relay_, key);
  auto other = authed_client(*relay_, engine::generate_keypair());
  ASSERT_TRUE(c && other);
  const Event valid = make_event(key, 1, "valid", {{"t", "x"}});
  const std::string frame = tc.frame(valid);
  ASSERT_TRUE(tc.binary ? c->ws().send_frame(net::ws::Opcode::kBinary, frame) : c->send(frame));

  auto notice = c->wait_for([](const RelayMessage& m) { return m.type == "NOTICE"; });
  ASSERT_TRUE(notice) << "no NOTICE";
  if (tc.prefix_only) {
    EXPECT_TRUE(notice->text.starts_with(tc.notice)) << notice->text;
  } else {
    EXPECT_EQ(notice->text, tc.notice);
  }
  ReqResult probe = c->req("probe", R"({"kinds":[1],"limit":0})");
  EXPECT_TRUE(probe.eose) << "the connection did not survive";
  for (const RelayMessage& m : drain(*c)) {
    // The only extra replies allowed are the ones docs/reference/protocol.md §3.3 adds.
    if (m.type == "OK") {
      EXPECT_FALSE(m.accepted) << m.raw;
      EXPECT_EQ(m.text, "invalid: malformed event") << m.raw;
    } else if (m.type == "CLOSED") {
      EXPECT_EQ(m.text, "invalid: malformed filter") << m.raw;
    } else {
      ADD_FAILURE() << "unexpected extra message: " << m.raw;
    }
  }
  EXPECT_TRUE(other->req("other", R"({"kinds":[1],"limit":0})").eose) << "another connection was affected";
}

std::string event_frame(const Event& e, const std::vector<std::pair<std::string, std::string>>& changes) {
  return "[\"EVENT\"," + event_json_with(e, changes) + "]";
}

std::string filters(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += std::string(i ? "," : "") + R"({"kinds":[1]})";
  return out;
}

const std::string kP = kParseNotice;

INSTANTIATE_TEST_SUITE_P(
    RelayCore, MalformedInputTest,
    ::testing::Values(
        MalformedCase{"NotJson", [](const Event&) { return std::string("this is not json"); },
                      kP + "JSON parse error", true},
        MalformedCase{"NotAnArray", [](const Event&) { return std::string(R"({"REQ":"x"})"); },
                      kP + "expected JSON array"},
        MalformedCase{"EmptyArray", [](const Event&) { return std::string("[]"); }, kP + "empty array"},
        MalformedCase{"VerbNotAString", [](const Event&) { return std::string("[1,2]"); },
                      kP + "first element must be a string"},
        MalformedCase{"UnknownVerb", [](const Event&) { return std::string(R"(["PUBLISH",{}])"); },
                      kP + "unknown message type: PUBLISH"},
        MalformedCase{"EventWithoutObject", [](const Event&) { return std::string(R"(["EVENT"])"); },
                      kP + "EVENT requires event object"},
        MalformedCase{"EventMissingSig", [](const Event& e) { return event_frame(e, {{"sig", ""}}); },
                      kP + "invalid event: ", true},
        MalformedCase{"EventKindAsString", [](const Event& e) { return event_frame(e, {{"kind", "\"1\""}}); },
                      kP + "invalid event: ", true},
        MalformedCase{"EventCreatedAtFloat",
                      [](const Event& e) { return event_frame(e, {{"created_at", std::to_string(e.created_at) + ".5"}}); },
                      kP + "invalid event: ", true},
        MalformedCase{"EventContentNotString", [](const Event& e) { return event_frame(e, {{"content", "42"}}); },
                      kP + "invalid event: ", true},
        MalformedCase{"EventTagValueNotString", [](const Event& e) { return event_frame(e, {{"tags", R"([["t",1]])"}}); },
                      kP + "invalid event: ", true},
        MalformedCase{"EventEmptyTag", [](const Event& e) { return event_frame(e, {{"tags", "[[]]"}}); },
                      kP + "invalid event: ", true},
        MalformedCase{"EventUppercaseIdHex",
                      [](const Event& e) { return event_frame(e, {{"id", json_quote(to_upper(e.id_hex()))}}); },
                      kP + "invalid event: ", true},
        MalformedCase{"EventUppercasePubkeyHex",
                      [](const Event& e) { return event_frame(e, {{"pubkey", json_quote(to_upper(e.pubkey_hex()))}}); },
                      kP + "invalid event: ", true},
        MalformedCase{"EventShortId", [](const Event& e) { return event_frame(e, {{"id", json_quote(e.id_hex().substr(2))}}); },
                      kP + "invalid event: ", true},
        MalformedCase{"EventNegativeKind", [](const Event& e) { return event_frame(e, {{"kind", "-1"}}); },
                      kP + "invalid event: ", true},
        MalformedCase{"EventKindAbove65535", [](const Event& e) { return event_frame(e, {{"kind", "65536"}}); },
                      kP + "invalid event: ", true},
        MalformedCase{"AuthWithoutObject", [](const Event&) { return std::string(R"(["AUTH"])"); },
                      kP + "AUTH requires event object"},
        MalformedCase{"CloseWithoutSubId", [](const Event&) { return std::string(R"(["CLOSE"])"); },
                      kP + "CLOSE requires sub_id"},
        MalformedCase{"ReqSubIdNotAString", [](const Event&) { return std::string(R"(["REQ",5,{"kinds":[1]}])"); },
                      kP + "REQ sub_id must be a string"},
        MalformedCase{"ReqWithoutSubId", [](const Event&) { return std::string(R"(["REQ"])"); },
                      kP + "REQ requires sub_id"},
        MalformedCase{"ReqEmptySubId", [](const Event&) { return std::string(R"(["REQ","",{"kinds":[1]}])"); },
                      kP + "REQ sub_id must not be empty"},
        MalformedCase{"ReqSubIdOver256Bytes",
                      [](const Event&) { return "[\"REQ\",\"" + std::string(257, 's') + "\",{\"kinds\":[1]}]"; },
                      kP + "REQ sub_id exceeds maximum length of 256 bytes"},
        MalformedCase{"ReqWithElevenFilters", [](const Event&) { return R"(["REQ","eleven",)" + filters(11) + "]"; },
                      kP + "REQ contains 11 filters, maximum is 10"},
        MalformedCase{"CountWithElevenFilters", [](const Event&) { return R"(["COUNT","eleven",)" + filters(11) + "]"; },
                      kP + "COUNT contains 11 filters, maximum is 10"},
        MalformedCase{"ReqWithHashDigitKey", [](const Event&) { return std::string(R"(["REQ","digit",{"#1":["x"]}])"); },
                      kP + "invalid filter: ", true},
        MalformedCase{"ReqWithIdPrefix", [](const Event& e) { return R"(["REQ","prefix",{"ids":[")" + e.id_hex().substr(0, 8) + R"("]}])"; },
                      kP + "invalid filter: ", true},
        MalformedCase{"InvalidUtf8InTextFrame", [](const Event&) { return std::string("[\"REQ\",\"\xff\xfe\",{}]"); },
                      kP, true}),
    [](const ::testing::TestParamInfo<MalformedCase>& info) { return info.param.name; });

TEST_F(OpenRelayTest, BinaryFrameWithInvalidUtf8IsDroppedSilently) {
  auto c = authed_client(relay(), engine::generate_keypair());
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->ws().send_frame(net::ws::Opcode::kBinary, "[\"REQ\",\"\xff\",{}]"));
  ReqResult probe = c->req("probe", R"({"kinds":[1],"limit":0})");
  EXPECT_TRUE(probe.eose) << why(probe);
  EXPECT_TRUE(drain(*c).empty());
}

TEST_F(OpenRelayTest, BinaryFrameWithValidJsonIsHandledLikeText) {
  auto c = authed_client(relay(), engine::generate_keypair());
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->ws().send_frame(net::ws::Opcode::kBinary, R"(["REQ","bin",{"kinds":[1],"limit":0}])"));
  auto eose = c->wait_for([](const RelayMessage& m) { return m.type == "EOSE" && m.id == "bin"; });
  EXPECT_TRUE(eose);
}

}  // namespace
}  // namespace buzz::test
