// Fuzz target: inspecting an uploaded MP4 (docs/reference/media.md §3.3 step 4): the atom
// walk and libavformat's MP4 demuxer over any bytes. Any input is refused
// with one of the spec's answers (400 or 415 and a message) or accepted with
// a size and duration inside the limits.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "server/media/video_info.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace buzz::server;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  VideoCheck check = inspect_mp4(VideoBytes::of_memory(bytes));
  if (!check.ok) {
    FUZZ_CHECK(check.status == 400 || check.status == 415);
    FUZZ_CHECK(!check.error.empty());
    return 0;
  }
  FUZZ_CHECK(check.info.width >= 1 && check.info.width <= kMaxVideoWidth);
  FUZZ_CHECK(check.info.height >= 1 && check.info.height <= kMaxVideoHeight);
  FUZZ_CHECK(check.info.duration_secs > 0 && check.info.duration_secs <= kMaxVideoSecs);
  return 0;
}
