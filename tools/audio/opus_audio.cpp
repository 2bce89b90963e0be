// Opus test audio; see opus_audio.h.
#include "tools/audio/opus_audio.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace buzz::audio {

SineEncoder::SineEncoder(double hz, int bitrate) : hz_(hz) {
  int err = 0;
  enc_ = opus_encoder_create(kSampleRate, 1, OPUS_APPLICATION_VOIP, &err);
  if (err != OPUS_OK) throw std::runtime_error(std::string("opus_encoder_create: ") + opus_strerror(err));
  opus_encoder_ctl(enc_, OPUS_SET_BITRATE(bitrate));
}

SineEncoder::~SineEncoder() { opus_encoder_destroy(enc_); }

std::string SineEncoder::next_packet() {
  int16_t pcm[kFrameSamples];
  for (int i = 0; i < kFrameSamples; ++i, ++sample_) {
    pcm[i] = int16_t(12000 * std::sin(2 * std::numbers::pi * hz_ * double(sample_) / kSampleRate));
  }
  unsigned char out[4000];
  const int n = opus_encode(enc_, pcm, kFrameSamples, out, sizeof out);
  if (n < 0) throw std::runtime_error(std::string("opus_encode: ") + opus_strerror(n));
  return std::string(reinterpret_cast<const char*>(out), size_t(n));
}

Decoder::Decoder() {
  int err = 0;
  dec_ = opus_decoder_create(kSampleRate, 1, &err);
  if (err != OPUS_OK) throw std::runtime_error(std::string("opus_decoder_create: ") + opus_strerror(err));
}

Decoder::~Decoder() { opus_decoder_destroy(dec_); }

bool Decoder::decode(const std::string& packet) {
  int16_t pcm[5760];
  const int n = opus_decode(dec_, reinterpret_cast<const unsigned char*>(packet.data()), opus_int32(packet.size()), pcm,
                            5760, 0);
  if (n < 0) return false;
  pcm_.insert(pcm_.end(), pcm, pcm + n);
  return true;
}

double dominant_hz(const std::vector<int16_t>& pcm, size_t skip) {
  size_t first = 0, last = 0, crossings = 0;
  for (size_t i = skip + 1; i < pcm.size(); ++i) {
    if (pcm[i - 1] < 0 && pcm[i] >= 0) {
      if (crossings == 0) first = i;
      last = i;
      ++crossings;
    }
  }
  if (crossings < 2) return 0;
  return double(crossings - 1) * kSampleRate / double(last - first);
}

}  // namespace buzz::audio
