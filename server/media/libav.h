// Libav: the libavformat functions the video path calls, loaded on first use.
//
// Linked, libavformat makes every start of the binary map its ~130 dependent
// libraries (codecs, GPU, network and audio libraries), about 60 ms of CPU
// before `main`: that was most of what a `buzz send-message` cost. Only an MP4
// upload needs it, so the relay loads it then, once (dlopen of the SONAME
// these headers were built for, so structures and functions agree).
#pragma once

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/log.h>
#include <libavutil/mathematics.h>
}

#include <string>

namespace buzz::server {

struct Libav {
  decltype(&::avformat_alloc_context) avformat_alloc_context;
  decltype(&::avformat_open_input) avformat_open_input;
  decltype(&::avformat_close_input) avformat_close_input;
  decltype(&::av_find_input_format) av_find_input_format;
  decltype(&::avio_alloc_context) avio_alloc_context;
  decltype(&::avio_context_free) avio_context_free;
  decltype(&::av_malloc) av_malloc;
  decltype(&::av_free) av_free;
  decltype(&::av_freep) av_freep;
  decltype(&::av_log_set_level) av_log_set_level;
  decltype(&::av_rescale) av_rescale;
};

// The functions (logging already silenced: refusals are ours to report), or
// nullptr when the library cannot be loaded, with why in `error`. Any thread.
const Libav* libav(std::string* error);

}  // namespace buzz::server
