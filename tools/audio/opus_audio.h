// Real Opus audio for the huddle tests and buzz-load (libopus): a sine wave
// encoded in 20 ms frames at 48 kHz mono, decoded back, and the frequency of
// what was decoded. Client side only; the relay never decodes.
#pragma once

#include <opus/opus.h>

#include <cstdint>
#include <string>
#include <vector>

namespace buzz::audio {

inline constexpr int kSampleRate = 48000;
inline constexpr int kFrameSamples = 960;  // 20 ms

class SineEncoder {
 public:
  // Throws std::runtime_error if libopus refuses the settings.
  SineEncoder(double hz, int bitrate = 32000);
  ~SineEncoder();
  SineEncoder(const SineEncoder&) = delete;
  SineEncoder& operator=(const SineEncoder&) = delete;
  // The next 20 ms of the tone as one Opus packet.
  std::string next_packet();

 private:
  OpusEncoder* enc_ = nullptr;
  double hz_;
  uint64_t sample_ = 0;
};

class Decoder {
 public:
  Decoder();
  ~Decoder();
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;
  // Appends the packet's PCM to pcm(); false if libopus cannot decode it.
  bool decode(const std::string& packet);
  const std::vector<int16_t>& pcm() const { return pcm_; }

 private:
  OpusDecoder* dec_ = nullptr;
  std::vector<int16_t> pcm_;
};

// The dominant frequency of pcm (48 kHz), from its rising zero crossings
// after skipping `skip` samples (the codec's start-up).
double dominant_hz(const std::vector<int16_t>& pcm, size_t skip = kFrameSamples * 5);

}  // namespace buzz::audio
