// Unit tests for server/client_message: every malformed-message case of
// docs/reference/protocol.md §3.3 with its exact NOTICE text, the event id / sub id recovered
// for the OK false / CLOSED that accompany it, the REQ/COUNT/CLOSE limits
// (sub id 1–256 bytes, at most 10 filters), and the well-formed messages,
// including that an EVENT's raw text is the object exactly as sent.
#include <gtest/gtest.h>

#include <string>

#include "engine/signature.h"
#include "server/relay/client_message.h"

namespace buzz::server {
namespace {

const std::string kPrefix = "invalid message: Invalid message format: ";

engine::Event client_event(uint16_t kind = 1) {
  engine::SecretKey s{};
  s[31] = 9;
  return engine::signed_event(*engine::keypair_from_secret(s), kind, 1700000000, {{"t", "x]}\"["}},
                              "brackets ] } [ { and \"quotes\" and \\ backslash");
}

ParseFailure failure(const std::string& text) {
  ClientMessage m = parse_client_message(text);
  EXPECT_TRUE(std::holds_alternative<ParseFailure>(m)) << text;
  return std::holds_alternative<ParseFailure>(m) ? std::get<ParseFailure>(m) : ParseFailure{};
}

std::string notice(const std::string& text) { return failure(text).notice; }

// ---------------------------------------------------------------------------
// well-formed messages

TEST(ClientMessage, EventMessage) {
  engine::Event e = client_event();
  std::string text = "[\"EVENT\"," + e.raw + "]";
  ClientMessage m = parse_client_message(text);
  ASSERT_TRUE(std::holds_alternative<EventMessage>(m));
  const engine::Event& got = std::get<EventMessage>(m).event;
  EXPECT_EQ(got.id, e.id);
  EXPECT_EQ(got.content, e.content);
  EXPECT_EQ(got.tags, e.tags);
  EXPECT_EQ(got.raw, e.raw);
}

TEST(ClientMessage, AuthMessage) {
  engine::Event e = client_event(22242);
  ClientMessage m = parse_client_message("[\"AUTH\"," + e.raw + "]");
  ASSERT_TRUE(std::holds_alternative<AuthMessage>(m));
  EXPECT_EQ(std::get<AuthMessage>(m).event.id, e.id);
  EXPECT_EQ(std::get<AuthMessage>(m).event.raw, e.raw);
}

TEST(ClientMessage, EventRawIsTheObjectAsSent) {
  engine::Event e = client_event();
  // Whitespace everywhere, reordered keys, escapes the relay would not write.
  std::string object = "{ \"content\" : \"brackets ] } [ { and \\\"quotes\\\" and \\\\ backslash\",\n\t\"id\":\"" +
                       e.id_hex() + "\",\"pubkey\":\"" + e.pubkey_hex() +
                       "\", \"created_at\":1700000000,\"kind\":1,\"tags\":[[\"t\",\"x]}\\\"[\"]],\"sig\":\"" +
                       engine::to_hex(e.sig) + "\",\"unknown\":{\"a\":[1,{\"b\":\"]\"}]} }";
  for (const std::string& text : {"[\"EVENT\"," + object + "]", " [ \"EVENT\" ,\n " + object + " \n] ",
                                   "[\"EVENT\"," + object + ",\"extra\",{}]", "[\"EV\\u0045NT\"," + object + "]"}) {
    ClientMessage m = parse_client_message(text);
    ASSERT_TRUE(std::holds_alternative<EventMessage>(m)) << text;
    EXPECT_EQ(std::get<EventMessage>(m).event.raw, object) << text;
    EXPECT_EQ(std::get<EventMessage>(m).event.content, e.content);
  }
}

TEST(ClientMessage, ReqMessage) {
  ClientMessage m = parse_client_message(R"(["REQ","sub1",{"kinds":[1]},{"#t":["x"],"limit":5}])");
  ASSERT_TRUE(std::holds_alternative<ReqMessage>(m));
  const ReqMessage& req = std::get<ReqMessage>(m);
  EXPECT_FALSE(req.is_count);
  EXPECT_EQ(req.sub_id, "sub1");
  ASSERT_EQ(req.filters.size(), 2u);
  EXPECT_EQ(*req.filters[0].kinds, std::vector<uint16_t>{1});
  EXPECT_EQ(req.filters[1].limit, 5u);
}

TEST(ClientMessage, ReqWithZeroFiltersIsLegal) {
  ClientMessage m = parse_client_message(R"(["REQ","s"])");
  ASSERT_TRUE(std::holds_alternative<ReqMessage>(m));
  EXPECT_TRUE(std::get<ReqMessage>(m).filters.empty());
}

TEST(ClientMessage, CountMessage) {
  ClientMessage m = parse_client_message(R"(["COUNT","c",{}])");
  ASSERT_TRUE(std::holds_alternative<ReqMessage>(m));
  EXPECT_TRUE(std::get<ReqMessage>(m).is_count);
  EXPECT_EQ(std::get<ReqMessage>(m).sub_id, "c");
  EXPECT_EQ(std::get<ReqMessage>(m).filters.size(), 1u);
}

TEST(ClientMessage, CloseMessage) {
  ClientMessage m = parse_client_message(R"(["CLOSE","sub1"])");
  ASSERT_TRUE(std::holds_alternative<CloseMessage>(m));
  EXPECT_EQ(std::get<CloseMessage>(m).sub_id, "sub1");
  // CLOSE has no length rules: it is always answered.
  m = parse_client_message(R"(["CLOSE",""])");
  ASSERT_TRUE(std::holds_alternative<CloseMessage>(m));
  EXPECT_EQ(std::get<CloseMessage>(m).sub_id, "");
  std::string long_id(300, 'x');
  m = parse_client_message("[\"CLOSE\",\"" + long_id + "\"]");
  ASSERT_TRUE(std::holds_alternative<CloseMessage>(m));
  EXPECT_EQ(std::get<CloseMessage>(m).sub_id, long_id);
}

TEST(ClientMessage, SubIdOfExactly256BytesIsAccepted) {
  std::string id;
  for (int i = 0; i < 128; ++i) id += "é";  // 256 bytes, 128 characters
  ClientMessage m = parse_client_message("[\"REQ\",\"" + id + "\",{}]");
  ASSERT_TRUE(std::holds_alternative<ReqMessage>(m));
  EXPECT_EQ(std::get<ReqMessage>(m).sub_id, id);
}

TEST(ClientMessage, TenFiltersAreAccepted) {
  std::string text = R"(["REQ","s")";
  for (int i = 0; i < 10; ++i) text += ",{}";
  ClientMessage m = parse_client_message(text + "]");
  ASSERT_TRUE(std::holds_alternative<ReqMessage>(m));
  EXPECT_EQ(std::get<ReqMessage>(m).filters.size(), 10u);
}

// ---------------------------------------------------------------------------
// docs/reference/protocol.md §3.3, one case per row

TEST(ClientMessageFailure, NotJson) {
  for (const char* text : {"", "not json", "[\"EVENT\",", "{\"a\":}", "[1,]"}) {
    ParseFailure f = failure(text);
    EXPECT_EQ(f.notice.rfind(kPrefix + "JSON parse error: ", 0), 0u) << text << " -> " << f.notice;
    EXPECT_FALSE(f.event_id);
    EXPECT_FALSE(f.sub_id);
  }
}

TEST(ClientMessageFailure, NotAnArray) {
  EXPECT_EQ(notice("{}"), kPrefix + "expected JSON array");
  EXPECT_EQ(notice("\"EVENT\""), kPrefix + "expected JSON array");
  EXPECT_EQ(notice("42"), kPrefix + "expected JSON array");
  EXPECT_EQ(notice("null"), kPrefix + "expected JSON array");
}

TEST(ClientMessageFailure, EmptyArray) {
  EXPECT_EQ(notice("[]"), kPrefix + "empty array");
  EXPECT_EQ(notice(" [ ] "), kPrefix + "empty array");
}

TEST(ClientMessageFailure, FirstElementNotAString) {
  EXPECT_EQ(notice("[1]"), kPrefix + "first element must be a string");
  EXPECT_EQ(notice("[null,\"x\"]"), kPrefix + "first element must be a string");
  EXPECT_EQ(notice("[[\"EVENT\"]]"), kPrefix + "first element must be a string");
}

TEST(ClientMessageFailure, UnknownVerb) {
  EXPECT_EQ(notice(R"(["FOO"])"), kPrefix + "unknown message type: FOO");
  EXPECT_EQ(notice(R"(["event",{}])"), kPrefix + "unknown message type: event");
  EXPECT_EQ(notice(R"(["",1])"), kPrefix + "unknown message type: ");
  EXPECT_EQ(notice(R"(["NOTICE","hi"])"), kPrefix + "unknown message type: NOTICE");
}

TEST(ClientMessageFailure, EventOrAuthWithoutObject) {
  EXPECT_EQ(notice(R"(["EVENT"])"), kPrefix + "EVENT requires event object");
  EXPECT_EQ(notice(R"(["EVENT",1])"), kPrefix + "EVENT requires event object");
  EXPECT_EQ(notice(R"(["EVENT",null])"), kPrefix + "EVENT requires event object");
  EXPECT_EQ(notice(R"(["EVENT",[{}]])"), kPrefix + "EVENT requires event object");
  EXPECT_EQ(notice(R"(["AUTH"])"), kPrefix + "AUTH requires event object");
  EXPECT_EQ(notice(R"(["AUTH","challenge"])"), kPrefix + "AUTH requires event object");
}

TEST(ClientMessageFailure, InvalidEventKeepsTheReadableId) {
  engine::Event e = client_event();
  std::string without_sig = e.raw.substr(0, e.raw.find(",\"sig\"")) + "}";
  ParseFailure f = failure("[\"EVENT\"," + without_sig + "]");
  EXPECT_EQ(f.notice, kPrefix + "invalid event: missing field `sig`");
  ASSERT_TRUE(f.event_id);
  EXPECT_EQ(*f.event_id, e.id_hex());
  EXPECT_FALSE(f.sub_id);
}

TEST(ClientMessageFailure, InvalidEventWithUnreadableId) {
  ParseFailure f = failure(R"(["EVENT",{"id":"abc","kind":1}])");
  EXPECT_EQ(f.notice, kPrefix + "invalid event: id must be 64 lowercase hex characters");
  EXPECT_FALSE(f.event_id);
  f = failure(R"(["EVENT",{"kind":1}])");
  EXPECT_EQ(f.notice, kPrefix + "invalid event: missing field `id`");
  EXPECT_FALSE(f.event_id);
}

TEST(ClientMessageFailure, InvalidAuthEvent) {
  engine::Event e = client_event(22242);
  std::string bad_kind = e.raw;
  bad_kind.replace(bad_kind.find("\"kind\":22242"), 12, "\"kind\":-1");
  ParseFailure f = failure("[\"AUTH\"," + bad_kind + "]");
  EXPECT_EQ(f.notice, kPrefix + "invalid auth event: kind must be an integer between 0 and 65535");
  ASSERT_TRUE(f.event_id);
  EXPECT_EQ(*f.event_id, e.id_hex());
}

TEST(ClientMessageFailure, EventWithOffCurvePubkeyIsAParseFailure) {
  // docs/reference/protocol.md §2.1: a pubkey that is not a valid x-only point fails to parse.
  engine::Event e = client_event();
  std::string raw = e.raw;
  std::string pk = e.pubkey_hex();
  raw.replace(raw.find(pk), 64, std::string(63, '0') + "5");
  ClientMessage m = parse_client_message("[\"EVENT\"," + raw + "]");
  ASSERT_TRUE(std::holds_alternative<ParseFailure>(m));
  EXPECT_EQ(std::get<ParseFailure>(m).notice.rfind(kPrefix + "invalid event: ", 0), 0u)
      << std::get<ParseFailure>(m).notice;
}

TEST(ClientMessageFailure, SubscriptionWithoutId) {
  EXPECT_EQ(notice(R"(["REQ"])"), kPrefix + "REQ requires sub_id");
  EXPECT_EQ(notice(R"(["COUNT"])"), kPrefix + "COUNT requires sub_id");
  EXPECT_EQ(notice(R"(["CLOSE"])"), kPrefix + "CLOSE requires sub_id");
}

TEST(ClientMessageFailure, SubIdNotAString) {
  EXPECT_EQ(notice(R"(["REQ",1,{}])"), kPrefix + "REQ sub_id must be a string");
  EXPECT_EQ(notice(R"(["COUNT",{},{}])"), kPrefix + "COUNT sub_id must be a string");
  EXPECT_EQ(notice(R"(["CLOSE",null])"), kPrefix + "CLOSE sub_id must be a string");
  EXPECT_FALSE(failure(R"(["REQ",1,{}])").sub_id);
}

TEST(ClientMessageFailure, EmptySubId) {
  EXPECT_EQ(notice(R"(["REQ","",{}])"), kPrefix + "REQ sub_id must not be empty");
  EXPECT_EQ(notice(R"(["COUNT","",{}])"), kPrefix + "COUNT sub_id must not be empty");
}

TEST(ClientMessageFailure, SubIdOver256Bytes) {
  std::string id(257, 's');
  EXPECT_EQ(notice("[\"REQ\",\"" + id + "\",{}]"), kPrefix + "REQ sub_id exceeds maximum length of 256 bytes");
  EXPECT_EQ(notice("[\"COUNT\",\"" + id + "\",{}]"), kPrefix + "COUNT sub_id exceeds maximum length of 256 bytes");
  std::string multibyte;
  for (int i = 0; i < 129; ++i) multibyte += "é";  // 129 characters, 258 bytes
  EXPECT_EQ(notice("[\"REQ\",\"" + multibyte + "\",{}]"), kPrefix + "REQ sub_id exceeds maximum length of 256 bytes");
}

TEST(ClientMessageFailure, TooManyFilters) {
  std::string filters;
  for (int i = 0; i < 11; ++i) filters += ",{}";
  EXPECT_EQ(notice("[\"REQ\",\"s\"" + filters + "]"), kPrefix + "REQ contains 11 filters, maximum is 10");
  EXPECT_EQ(notice("[\"COUNT\",\"s\"" + filters + "]"), kPrefix + "COUNT contains 11 filters, maximum is 10");
  // No CLOSED for this case.
  EXPECT_FALSE(failure("[\"REQ\",\"s\"" + filters + "]").sub_id);
}

TEST(ClientMessageFailure, InvalidFilterKeepsTheSubId) {
  ParseFailure f = failure(R"(["REQ","sub7",{},{"kinds":[70000]}])");
  EXPECT_EQ(f.notice, kPrefix + "invalid filter: kinds must hold integers between 0 and 65535");
  ASSERT_TRUE(f.sub_id);
  EXPECT_EQ(*f.sub_id, "sub7");
  EXPECT_FALSE(f.event_id);

  EXPECT_EQ(notice(R"(["REQ","s",{"#1":["x"]}])"),
            kPrefix + "invalid filter: tag filter keys must be # followed by one letter, got #1");
  EXPECT_EQ(notice(R"(["COUNT","s",{"ids":["abc"]}])"),
            kPrefix + "invalid filter: ids must hold 64-character lowercase hex values");
  EXPECT_EQ(notice(R"(["REQ","s",[]])"), kPrefix + "invalid filter: filter must be a JSON object");
  EXPECT_EQ(notice(R"(["REQ","s",{"since":-1}])"), kPrefix + "invalid filter: since must be a non-negative integer");
}

// NIP-77: NEG-OPEN / NEG-MSG / NEG-CLOSE, and the NEG-ERR their failures get.
TEST(ClientMessage, NegentropyMessages) {
  ClientMessage open = parse_client_message(R"(["NEG-OPEN","n1",{"kinds":[1]},"6100000200"])");
  ASSERT_TRUE(std::holds_alternative<NegOpenMessage>(open));
  EXPECT_EQ(std::get<NegOpenMessage>(open).sub_id, "n1");
  EXPECT_EQ(std::get<NegOpenMessage>(open).message, "6100000200");
  ASSERT_TRUE(std::get<NegOpenMessage>(open).filter.kinds);
  ClientMessage msg = parse_client_message(R"(["NEG-MSG","n1","61"])");
  ASSERT_TRUE(std::holds_alternative<NegMsgMessage>(msg));
  EXPECT_EQ(std::get<NegMsgMessage>(msg).message, "61");
  ClientMessage close = parse_client_message(R"(["NEG-CLOSE","n1"])");
  ASSERT_TRUE(std::holds_alternative<NegCloseMessage>(close));
  EXPECT_EQ(std::get<NegCloseMessage>(close).sub_id, "n1");
}

TEST(ClientMessage, MalformedNegentropyMessagesNameTheirSession) {
  ParseFailure f = failure(R"(["NEG-OPEN","n1",{"kinds":[1]}])");
  EXPECT_EQ(f.notice, kPrefix + "NEG-OPEN requires its message as a hex string");
  EXPECT_EQ(f.sub_id, "n1");
  EXPECT_TRUE(f.negentropy);
  f = failure(R"(["NEG-OPEN","n1",{"kinds":"x"},"61"])");
  EXPECT_TRUE(f.notice.starts_with(kPrefix + "NEG-OPEN invalid filter: ")) << f.notice;
  EXPECT_TRUE(f.negentropy);
  EXPECT_EQ(failure(R"(["NEG-MSG","n1",97])").notice, kPrefix + "NEG-MSG requires its message as a hex string");
  EXPECT_EQ(notice(R"(["NEG-MSG",7,"61"])"), kPrefix + "NEG-MSG requires a string sub_id");
  EXPECT_FALSE(failure(R"(["NEG-MSG",7,"61"])").sub_id);
}

}  // namespace
}  // namespace buzz::server
