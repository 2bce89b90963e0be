// Fuzz target: the decoders of what the relay reads back from disk.
//
// A damaged or foreign data directory (a bad migration input, a torn copy)
// must be refused value by value, never read past a value's end. The first
// byte picks the decoder; the rest is the stored value.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/api_tokens.h"
#include "engine/audit_entry.h"
#include "engine/audit_segment.h"
#include "engine/channel.h"
#include "engine/event_record.h"
#include "engine/thread_row.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view value(reinterpret_cast<const char*>(data + 1), size - 1);
  using namespace buzz::engine;
  switch (data[0] % 7) {
    case 0: {
      RecordView record;
      if (decode_record(value, &record)) {
        auto inside = [&](std::string_view s) {
          return s.empty() || (s.data() >= value.data() && s.data() + s.size() <= value.data() + value.size());
        };
        FUZZ_CHECK(inside(record.raw) && inside(record.fields.channel));
        for (const auto& tag : record.fields.tags) FUZZ_CHECK(inside(tag.value));
      }
      break;
    }
    case 1: {
      Channel channel;
      (void)decode_channel(value, &channel);
      break;
    }
    case 2: {
      ChannelMember member;
      (void)decode_member(value, &member);
      break;
    }
    case 3: {
      ApiToken token;
      (void)decode_token(value, &token);
      break;
    }
    case 4: (void)ThreadRow::decode(value); break;
    case 5: (void)decode_audit_payload(value); break;
    case 6:
      (void)decode_segment_header(value);
      (void)decode_trailer_payload(value);
      break;
  }
  return 0;
}
