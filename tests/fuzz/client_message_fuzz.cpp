// Fuzz target: a WebSocket text message from a client (EVENT, AUTH, REQ, COUNT, CLOSE).
//
// Invariants beyond "no crash":
// - an accepted event's raw JSON (cut out of the message by hand, not by
//   simdjson) parses on its own to the same event, and so does its canonical
//   re-serialization;
// - every text the relay would echo back (notice, sub id, event id) is UTF-8,
//   since it goes into a JSON frame;
// - every accepted filter can be matched against an event without failing.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/event_parse.h"
#include "engine/filter.h"
#include "engine/signature.h"
#include "net/websocket.h"
#include "server/relay/client_message.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using buzz::engine::Event;

bool same_event(const Event& a, const Event& b) {
  return a.id == b.id && a.pubkey == b.pubkey && a.sig == b.sig && a.created_at == b.created_at &&
         a.kind == b.kind && a.tags == b.tags && a.content == b.content;
}

void check_event(const Event& e) {
  auto reparsed = buzz::engine::parse_event_json(e.raw);
  FUZZ_CHECK(reparsed.ok());
  FUZZ_CHECK(same_event(e, *reparsed));
  auto canonical = buzz::engine::parse_event_json(buzz::engine::serialize_event(e));
  FUZZ_CHECK(canonical.ok());
  FUZZ_CHECK(same_event(e, *canonical));
}

void check_filters(const buzz::server::ReqMessage& req) {
  Event e;
  e.kind = 1;
  e.created_at = 1700000000;
  e.tags = {{"e", "x"}, {"p", ""}, {"t", "buzz"}};
  buzz::engine::EventFields fields;
  fields.assign(e);
  for (const auto& f : req.filters) {
    (void)f.matches(fields);
    (void)f.matches_nothing();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto message = buzz::server::parse_client_message(text);
  using namespace buzz::server;
  if (auto* m = std::get_if<EventMessage>(&message)) check_event(m->event);
  if (auto* m = std::get_if<AuthMessage>(&message)) check_event(m->event);
  if (auto* m = std::get_if<ReqMessage>(&message)) {
    FUZZ_CHECK(buzz::net::ws::is_valid_utf8(m->sub_id));
    check_filters(*m);
  }
  if (auto* m = std::get_if<CloseMessage>(&message)) FUZZ_CHECK(buzz::net::ws::is_valid_utf8(m->sub_id));
  if (auto* m = std::get_if<ParseFailure>(&message)) {
    FUZZ_CHECK(!m->notice.empty() && buzz::net::ws::is_valid_utf8(m->notice));
    if (m->sub_id) FUZZ_CHECK(buzz::net::ws::is_valid_utf8(*m->sub_id));
    if (m->event_id) FUZZ_CHECK(buzz::net::ws::is_valid_utf8(*m->event_id));
  }
  return 0;
}
