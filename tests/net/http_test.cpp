// Unit tests for net/http: parse_head then parse_body (as the loop calls them)
// on complete, pipelined and truncated input (need-more at every cut point),
// the head alone (declared length, no body needed, a per-request limit),
// request-line and header errors (including what a proxy could read
// differently: space before a colon, CR/LF/NUL in values, conflicting
// Content-Lengths), lowercased header names, the 413 body and 431 header
// limits, 501 for Transfer-Encoding, keep-alive rules for HTTP/1.0 and 1.1,
// Expect: 100-continue, the WebSocket upgrade check, query_param
// percent-decoding, and serialize_response (with a HEAD length override).
// Pure functions, no sockets.
#include "net/http.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <string_view>

namespace buzz::net {

// Readable gtest output for parse states (found by argument-dependent lookup).
void PrintTo(ParseState s, std::ostream* os) {
  *os << (s == ParseState::kComplete ? "kComplete" : s == ParseState::kNeedMore ? "kNeedMore" : "kError");
}

namespace {

using namespace std::string_view_literals;

constexpr size_t kBodyLimit = 1 << 20;

// One whole request, in the loop's two steps.
ParseOutcome parse_request(std::string_view data, HttpRequest* out, size_t max_body = kBodyLimit) {
  ParseOutcome head = parse_head(data, out);
  if (head.state != ParseState::kComplete) return head;
  return parse_body(data, head.consumed, max_body, out);
}

// Each request is refused with 400 and a reason.
void expect_bad_request(std::initializer_list<std::string_view> requests) {
  for (std::string_view req : requests) {
    HttpRequest r;
    ParseOutcome o = parse_request(req, &r);
    EXPECT_EQ(o.state, ParseState::kError) << req;
    EXPECT_EQ(o.error_status, 400) << req;
    EXPECT_FALSE(o.error.empty()) << req;
  }
}

TEST(HttpParse, CompleteGetRequest) {
  std::string req = "GET /info?x=1&y=2 HTTP/1.1\r\nHost: relay.example\r\nAccept: application/nostr+json\r\n\r\n";
  HttpRequest r;
  ParseOutcome o = parse_request(req, &r);
  ASSERT_EQ(o.state, ParseState::kComplete) << o.error;
  EXPECT_EQ(o.consumed, req.size());
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.target, "/info?x=1&y=2");
  EXPECT_EQ(r.path, "/info");
  EXPECT_EQ(r.query, "x=1&y=2");
  EXPECT_EQ(r.header("host"), "relay.example");
  EXPECT_EQ(r.header("accept"), "application/nostr+json");
  EXPECT_EQ(r.header("missing"), "");
  EXPECT_TRUE(r.body.empty());
  EXPECT_TRUE(r.keep_alive);
}

TEST(HttpParse, RequestWithoutHeaders) {
  std::string req = "GET / HTTP/1.1\r\n\r\n";
  HttpRequest r;
  ParseOutcome o = parse_request(req, &r);
  ASSERT_EQ(o.state, ParseState::kComplete) << o.error;
  EXPECT_EQ(o.consumed, req.size());
  EXPECT_EQ(r.path, "/");
  EXPECT_EQ(r.query, "");
  EXPECT_TRUE(r.headers.empty());
}

TEST(HttpParse, PostWithBody) {
  std::string req = "POST /events HTTP/1.1\r\nContent-Length: 11\r\nContent-Type: application/json\r\n\r\n{\"a\":[1,2]}";
  HttpRequest r;
  ParseOutcome o = parse_request(req, &r);
  ASSERT_EQ(o.state, ParseState::kComplete) << o.error;
  EXPECT_EQ(o.consumed, req.size());
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.body, "{\"a\":[1,2]}");
}

TEST(HttpParse, ZeroContentLength) {
  std::string req = "POST /count HTTP/1.1\r\nContent-Length: 0\r\n\r\n";
  HttpRequest r;
  ParseOutcome o = parse_request(req, &r);
  ASSERT_EQ(o.state, ParseState::kComplete) << o.error;
  EXPECT_EQ(o.consumed, req.size());
  EXPECT_TRUE(r.body.empty());
}

TEST(HttpParse, PipelinedRequestsAreParsedOneAtATime) {
  std::string first = "POST /a HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc";
  std::string second = "GET /b HTTP/1.1\r\n\r\n";
  std::string both = first + second;
  HttpRequest r;
  ParseOutcome o = parse_request(both, &r);
  ASSERT_EQ(o.state, ParseState::kComplete);
  EXPECT_EQ(o.consumed, first.size());
  EXPECT_EQ(r.body, "abc");
  HttpRequest r2;
  o = parse_request(std::string_view(both).substr(first.size()), &r2);
  ASSERT_EQ(o.state, ParseState::kComplete);
  EXPECT_EQ(o.consumed, second.size());
  EXPECT_EQ(r2.path, "/b");
  EXPECT_TRUE(r2.headers.empty());
  EXPECT_TRUE(r2.body.empty());
}

TEST(HttpParse, NeedsMoreAtEveryTruncation) {
  std::string req =
      "POST /events?a=b HTTP/1.1\r\nHost: h\r\nContent-Length: 13\r\nConnection: keep-alive\r\n\r\n{\"kind\":1234}";
  for (size_t n = 0; n < req.size(); ++n) {
    HttpRequest r;
    ParseOutcome o = parse_request(std::string_view(req).substr(0, n), &r);
    EXPECT_EQ(o.state, ParseState::kNeedMore) << "prefix of " << n << " bytes: " << o.error;
  }
  HttpRequest r;
  EXPECT_EQ(parse_request(req, &r).state, ParseState::kComplete);
}

TEST(HttpParse, HeaderNamesAreLowercasedAndValuesTrimmed) {
  std::string req = "GET / HTTP/1.1\r\nX-Custom-HEADER:   some Value \t\r\nUPGRADE:websocket\r\n\r\n";
  HttpRequest r;
  ASSERT_EQ(parse_request(req, &r).state, ParseState::kComplete);
  ASSERT_EQ(r.headers.size(), 2u);
  EXPECT_EQ(r.headers[0].first, "x-custom-header");
  EXPECT_EQ(r.headers[0].second, "some Value");  // value case is kept
  EXPECT_EQ(r.headers[1].first, "upgrade");
  EXPECT_EQ(r.header("x-custom-header"), "some Value");
  EXPECT_EQ(r.header("upgrade"), "websocket");
}

TEST(HttpParse, HeaderReturnsTheFirstOfRepeatedNames) {
  std::string req = "GET / HTTP/1.1\r\nX-A: one\r\nx-a: two\r\n\r\n";
  HttpRequest r;
  ASSERT_EQ(parse_request(req, &r).state, ParseState::kComplete);
  EXPECT_EQ(r.headers.size(), 2u);
  EXPECT_EQ(r.header("x-a"), "one");
}

TEST(HttpParse, HeaderValueMayContainColons) {
  std::string req = "GET / HTTP/1.1\r\nHost: relay.example:3000\r\n\r\n";
  HttpRequest r;
  ASSERT_EQ(parse_request(req, &r).state, ParseState::kComplete);
  EXPECT_EQ(r.header("host"), "relay.example:3000");
}

TEST(HttpParse, ReusedRequestObjectIsReset) {
  HttpRequest r;
  ASSERT_EQ(parse_request("GET /a?q=1 HTTP/1.1\r\nX-A: 1\r\n\r\n", &r).state, ParseState::kComplete);
  ASSERT_EQ(parse_request("GET /b HTTP/1.1\r\n\r\n", &r).state, ParseState::kComplete);
  EXPECT_EQ(r.path, "/b");
  EXPECT_EQ(r.query, "");
  EXPECT_TRUE(r.headers.empty());
}

TEST(HttpParse, MalformedRequestLine) {
  expect_bad_request({"GET\r\n\r\n", "GET /\r\n\r\n", "\r\n\r\n", "GET / HTTP/2.0\r\n\r\n", "GET / HTTP/1.1x\r\n\r\n",
                      "GET / http/1.1\r\n\r\n"});
}

TEST(HttpParse, TargetMustBeAnAbsolutePath) {
  expect_bad_request({"GET * HTTP/1.1\r\n\r\n", "GET  HTTP/1.1\r\n\r\n", "GET relay HTTP/1.1\r\n\r\n"});
}

TEST(HttpParse, MalformedHeaderLine) {
  expect_bad_request({"GET / HTTP/1.1\r\nNoColon\r\n\r\n", "GET / HTTP/1.1\r\n: empty-name\r\n\r\n"});
}

TEST(HttpParse, MethodMustBeAToken) {
  expect_bad_request({"G(T / HTTP/1.1\r\n\r\n", "G\nT / HTTP/1.1\r\n\r\n", " / HTTP/1.1\r\n\r\n"});
}

TEST(HttpParse, TargetMustBeVisibleAscii) {
  expect_bad_request({"GET /a b HTTP/1.1\r\n\r\n", "GET /a\tb HTTP/1.1\r\n\r\n", "GET /\xc3\xa9 HTTP/1.1\r\n\r\n",
                      "GET /a\nb HTTP/1.1\r\n\r\n"});
  HttpRequest r;
  ASSERT_EQ(parse_request("GET /search?q=caf%C3%A9+au+lait HTTP/1.1\r\n\r\n", &r).state, ParseState::kComplete);
  EXPECT_EQ(r.query_param("q"), "caf\xc3\xa9 au lait");
}

// A proxy that reads these differently from us could smuggle a second request
// past its own checks (RFC 9112 §5.1, §6.3; RFC 9110 §5.5).
TEST(HttpParse, HeadersAProxyMightReadDifferentlyAreRefused) {
  expect_bad_request({"POST / HTTP/1.1\r\nContent-Length : 5\r\n\r\nhello",
                      "POST / HTTP/1.1\r\nContent-Length\t: 5\r\n\r\nhello",
                      "POST / HTTP/1.1\r\n Content-Length: 5\r\n\r\nhello",
                      "GET / HTTP/1.1\r\nX-A: one\nContent-Length: 5\r\n\r\nhello",
                      "GET / HTTP/1.1\r\nOrigin: http://a\rSet-Cookie: x\r\n\r\n",
                      "POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
                      "POST / HTTP/1.1\r\nContent-Length:\r\n\r\n",
                      "GET / HTTP/1.1\r\nX-A: a\0b\r\n\r\n"sv});  // sv: the NUL is part of the request
}

TEST(HttpParse, RepeatedEqualContentLengthsAreOneLength) {
  HttpRequest r;
  ASSERT_EQ(parse_request("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello", &r).state,
            ParseState::kComplete);
  EXPECT_EQ(r.body, "hello");
}

TEST(HttpParse, InvalidContentLength) {
  for (const char* cl : {"abc", "-1", "1x", "+5", "99999999999999999999999"}) {
    std::string req = std::string("POST / HTTP/1.1\r\nContent-Length: ") + cl + "\r\n\r\n";
    HttpRequest r;
    ParseOutcome o = parse_request(req, &r);
    EXPECT_EQ(o.state, ParseState::kError) << cl;
    EXPECT_EQ(o.error_status, 400) << cl;
  }
}

TEST(HttpParse, BodyOverTheLimitIs413BeforeTheBodyArrives) {
  std::string head = "POST /events HTTP/1.1\r\nContent-Length: 101\r\n\r\n";
  HttpRequest r;
  ParseOutcome o = parse_request(head, &r, 100);
  EXPECT_EQ(o.state, ParseState::kError);
  EXPECT_EQ(o.error_status, 413);
  // Exactly the limit is fine.
  std::string at_limit = "POST /events HTTP/1.1\r\nContent-Length: 100\r\n\r\n" + std::string(100, 'x');
  o = parse_request(at_limit, &r, 100);
  EXPECT_EQ(o.state, ParseState::kComplete);
  EXPECT_EQ(r.body.size(), 100u);
}

TEST(HttpParse, HeadIsCompleteBeforeTheBody) {
  std::string head = "PUT /media/upload HTTP/1.1\r\nContent-Length: 5000000\r\nX-SHA-256: ab\r\n\r\n";
  HttpRequest r;
  ParseOutcome o = parse_head(head + "first bytes", &r);
  ASSERT_EQ(o.state, ParseState::kComplete) << o.error;
  EXPECT_EQ(o.consumed, head.size());
  EXPECT_EQ(r.content_length, 5000000u);
  EXPECT_EQ(r.header("x-sha-256"), "ab");
  EXPECT_TRUE(r.body.empty());
  // The limit is the caller's choice per request: over one, under another.
  EXPECT_EQ(parse_body(head, o.consumed, kBodyLimit, &r).error_status, 413);
  EXPECT_EQ(parse_body(head, o.consumed, 50 << 20, &r).state, ParseState::kNeedMore);
}

TEST(HttpParse, BodyIsTakenFromAfterTheHead) {
  std::string req = "PUT /x HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET /next";
  HttpRequest r;
  ParseOutcome head = parse_head(req, &r);
  ASSERT_EQ(head.state, ParseState::kComplete);
  EXPECT_EQ(parse_body(std::string_view(req).substr(0, head.consumed + 2), head.consumed, 3, &r).state,
            ParseState::kNeedMore);
  ParseOutcome whole = parse_body(req, head.consumed, 3, &r);
  ASSERT_EQ(whole.state, ParseState::kComplete);
  EXPECT_EQ(whole.consumed, head.consumed + 3);
  EXPECT_EQ(r.body, "abc");
}

TEST(HttpParse, ExpectContinue) {
  HttpRequest r;
  ASSERT_EQ(parse_head("PUT / HTTP/1.1\r\nExpect: 100-Continue\r\nContent-Length: 9\r\n\r\n", &r).state,
            ParseState::kComplete);
  EXPECT_TRUE(r.expects_continue());
  ASSERT_EQ(parse_head("PUT / HTTP/1.1\r\nContent-Length: 9\r\n\r\n", &r).state, ParseState::kComplete);
  EXPECT_FALSE(r.expects_continue());
}

TEST(HttpParse, OneMebibyteBodyLimit) {
  HttpRequest r;
  std::string over = "POST /events HTTP/1.1\r\nContent-Length: " + std::to_string((1 << 20) + 1) + "\r\n\r\n";
  EXPECT_EQ(parse_request(over, &r).error_status, 413);
  std::string at = "POST /events HTTP/1.1\r\nContent-Length: " + std::to_string(1 << 20) + "\r\n\r\n";
  EXPECT_EQ(parse_request(at, &r).state, ParseState::kNeedMore);
}

TEST(HttpParse, OversizedHeadersAre431) {
  // No terminator yet, but already past the limit.
  std::string endless = "GET / HTTP/1.1\r\nX-Pad: " + std::string(kMaxHeaderBytes, 'a');
  HttpRequest r;
  ParseOutcome o = parse_request(endless, &r);
  EXPECT_EQ(o.state, ParseState::kError);
  EXPECT_EQ(o.error_status, 431);
  // Complete, but the header section is one byte over.
  std::string head = "GET / HTTP/1.1\r\nX-Pad: ";
  head += std::string(kMaxHeaderBytes + 1 - head.size(), 'a');
  ASSERT_EQ(head.size(), kMaxHeaderBytes + 1);
  o = parse_request(head + "\r\n\r\n", &r);
  EXPECT_EQ(o.state, ParseState::kError);
  EXPECT_EQ(o.error_status, 431);
}

TEST(HttpParse, HeaderSectionOfExactlyTheLimitIsAccepted) {
  std::string head = "GET / HTTP/1.1\r\nX-Pad: ";
  head += std::string(kMaxHeaderBytes - head.size(), 'a');
  ASSERT_EQ(head.size(), kMaxHeaderBytes);
  std::string req = head + "\r\n\r\n";
  HttpRequest r;
  ParseOutcome o = parse_request(req, &r);
  EXPECT_EQ(o.state, ParseState::kComplete) << o.error;
  EXPECT_EQ(o.consumed, req.size());
  // The same request arriving in pieces must not be refused part-way: every
  // prefix, including those that end inside the final CRLFCRLF, needs more.
  for (size_t n = req.size() - 4; n < req.size(); ++n) {
    ParseOutcome partial = parse_request(std::string_view(req).substr(0, n), &r);
    EXPECT_EQ(partial.state, ParseState::kNeedMore) << "prefix of " << n << " bytes, status " << partial.error_status;
  }
}

TEST(HttpParse, TransferEncodingIs501) {
  for (const char* te : {"chunked", "Chunked", "gzip, chunked"}) {
    std::string req = std::string("POST /events HTTP/1.1\r\nTransfer-Encoding: ") + te + "\r\n\r\n";
    HttpRequest r;
    ParseOutcome o = parse_request(req, &r);
    EXPECT_EQ(o.state, ParseState::kError) << te;
    EXPECT_EQ(o.error_status, 501) << te;
  }
}

// ---------------------------------------------------------------------------
// keep-alive

bool keep_alive(const std::string& version, const std::string& connection_header) {
  std::string req = "GET / " + version + "\r\n";
  if (!connection_header.empty()) req += "Connection: " + connection_header + "\r\n";
  req += "\r\n";
  HttpRequest r;
  EXPECT_EQ(parse_request(req, &r).state, ParseState::kComplete) << req;
  return r.keep_alive;
}

TEST(HttpKeepAlive, Http11DefaultsToKeepAlive) {
  EXPECT_TRUE(keep_alive("HTTP/1.1", ""));
  EXPECT_TRUE(keep_alive("HTTP/1.1", "keep-alive"));
  EXPECT_TRUE(keep_alive("HTTP/1.1", "Upgrade"));
  EXPECT_FALSE(keep_alive("HTTP/1.1", "close"));
  EXPECT_FALSE(keep_alive("HTTP/1.1", "Close"));
  EXPECT_FALSE(keep_alive("HTTP/1.1", "keep-alive, close"));
  EXPECT_FALSE(keep_alive("HTTP/1.1", " upgrade ,CLOSE "));
  EXPECT_TRUE(keep_alive("HTTP/1.1", "closed"));  // a token, not a substring
}

TEST(HttpKeepAlive, Http10DefaultsToClose) {
  EXPECT_FALSE(keep_alive("HTTP/1.0", ""));
  EXPECT_FALSE(keep_alive("HTTP/1.0", "close"));
  EXPECT_TRUE(keep_alive("HTTP/1.0", "keep-alive"));
  EXPECT_TRUE(keep_alive("HTTP/1.0", "Keep-Alive"));
  EXPECT_TRUE(keep_alive("HTTP/1.0", "foo, keep-alive"));
}

// ---------------------------------------------------------------------------
// WebSocket upgrade

bool wants_ws(const std::string& method, const std::string& headers) {
  std::string req = method + " / HTTP/1.1\r\n" + headers + "\r\n";
  HttpRequest r;
  EXPECT_EQ(parse_request(req, &r).state, ParseState::kComplete) << req;
  return r.wants_websocket();
}

TEST(HttpUpgrade, WantsWebSocket) {
  EXPECT_TRUE(wants_ws("GET", "Upgrade: websocket\r\nConnection: Upgrade\r\n"));
  EXPECT_TRUE(wants_ws("GET", "Upgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\n"));
  EXPECT_TRUE(wants_ws("GET", "upgrade: websocket\r\nconnection: upgrade\r\n"));
}

TEST(HttpUpgrade, NeedsGetAndBothHeaders) {
  EXPECT_FALSE(wants_ws("POST", "Upgrade: websocket\r\nConnection: Upgrade\r\n"));
  EXPECT_FALSE(wants_ws("GET", "Upgrade: websocket\r\n"));
  EXPECT_FALSE(wants_ws("GET", "Connection: Upgrade\r\n"));
  EXPECT_FALSE(wants_ws("GET", "Upgrade: h2c\r\nConnection: Upgrade\r\n"));
  EXPECT_FALSE(wants_ws("GET", "Upgrade: websocket\r\nConnection: keep-alive\r\n"));
  EXPECT_FALSE(wants_ws("GET", ""));
}

// ---------------------------------------------------------------------------
// query parameters

HttpRequest with_query(const std::string& query) {
  HttpRequest r;
  r.query = query;
  return r;
}

TEST(HttpQuery, FindsAndDecodesParameters) {
  HttpRequest r = with_query("name=alice&b=hello%20world&c=x+y&empty=&flag&enc%6Fded=1&upper=%2F%2f");
  EXPECT_EQ(r.query_param("name"), "alice");
  EXPECT_EQ(r.query_param("b"), "hello world");
  EXPECT_EQ(r.query_param("c"), "x y");
  EXPECT_EQ(r.query_param("empty"), "");
  EXPECT_EQ(r.query_param("flag"), "");
  EXPECT_EQ(r.query_param("encoded"), "1");
  EXPECT_EQ(r.query_param("upper"), "//");
  EXPECT_EQ(r.query_param("missing"), "");
  EXPECT_EQ(r.query_param("nam"), "");
}

TEST(HttpQuery, FirstOccurrenceWins) {
  EXPECT_EQ(with_query("a=1&a=2").query_param("a"), "1");
}

TEST(HttpQuery, MalformedPercentEscapesAreKeptLiterally) {
  HttpRequest r = with_query("a=%zz&b=100%&c=%4&d=%41");
  EXPECT_EQ(r.query_param("a"), "%zz");
  EXPECT_EQ(r.query_param("b"), "100%");
  EXPECT_EQ(r.query_param("c"), "%4");
  EXPECT_EQ(r.query_param("d"), "A");
}

TEST(HttpQuery, DecodesUtf8AndReservedCharacters) {
  HttpRequest r = with_query("name=%C3%A9l%C3%A8ve&x=a%26b%3Dc");
  EXPECT_EQ(r.query_param("name"), "élève");
  EXPECT_EQ(r.query_param("x"), "a&b=c");
}

TEST(HttpQuery, ParsedFromTheTarget) {
  HttpRequest r;
  ASSERT_EQ(parse_request("GET /.well-known/nostr.json?name=bob%40x HTTP/1.1\r\n\r\n", &r).state, ParseState::kComplete);
  EXPECT_EQ(r.path, "/.well-known/nostr.json");
  EXPECT_EQ(r.query_param("name"), "bob@x");
  // Only the first '?' splits.
  ASSERT_EQ(parse_request("GET /p?a=1?2 HTTP/1.1\r\n\r\n", &r).state, ParseState::kComplete);
  EXPECT_EQ(r.path, "/p");
  EXPECT_EQ(r.query_param("a"), "1?2");
}

// ---------------------------------------------------------------------------
// responses

TEST(HttpResponse, SerializesStatusHeadersAndBody) {
  HttpResponse resp = HttpResponse::json(200, "{\"ok\":true}");
  resp.headers.push_back({"Access-Control-Allow-Origin", "*"});
  std::string out = serialize_response(resp, true);
  EXPECT_EQ(out,
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n"
            "Access-Control-Allow-Origin: *\r\nConnection: keep-alive\r\n\r\n{\"ok\":true}");
}

TEST(HttpResponse, CloseAndHeadOnly) {
  HttpResponse resp = HttpResponse::text(404, "not found");
  std::string out = serialize_response(resp, false, /*head_only=*/true);
  EXPECT_EQ(out,
            "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 9\r\n"
            "Connection: close\r\n\r\n");
}

TEST(HttpResponse, HeadLengthOverridesTheEmptyBody) {
  HttpResponse resp = HttpResponse::json(200, "");
  resp.content_type = "image/png";
  resp.content_length = 48213;
  EXPECT_EQ(serialize_response_head(resp, true),
            "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 48213\r\nConnection: keep-alive\r\n\r\n");
  EXPECT_EQ(serialize_response(resp, true, /*head_only=*/true), serialize_response_head(resp, true));
}

TEST(HttpResponse, EmptyContentTypeIsOmitted) {
  HttpResponse resp;
  resp.status = 204;
  resp.content_type.clear();
  EXPECT_EQ(serialize_response(resp, true), "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n");
}

TEST(HttpResponse, StatusTexts) {
  EXPECT_EQ(status_text(101), "Switching Protocols");
  EXPECT_EQ(status_text(400), "Bad Request");
  EXPECT_EQ(status_text(413), "Payload Too Large");
  EXPECT_EQ(status_text(431), "Request Header Fields Too Large");
  EXPECT_EQ(status_text(501), "Not Implemented");
  EXPECT_EQ(status_text(503), "Service Unavailable");
  EXPECT_EQ(status_text(599), "Unknown");
}

}  // namespace
}  // namespace buzz::net
