// CopyRow: appends one row of COPY text fields, tab-separated, to a block.
// Zero pubkeys and zero times stand for "not set" in Buzz's records and become NULL.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "engine/hex.h"
#include "migrate/pg_connection.h"

namespace buzz::migrate {

class CopyRow {
 public:
  explicit CopyRow(std::string& out) : out_(out) {}
  ~CopyRow() { out_.push_back('\n'); }

  CopyRow& text(std::string_view s) { return sep(), copy_text::append_text(out_, s), *this; }
  CopyRow& text_or_null(std::string_view s) { return s.empty() ? null() : text(s); }
  CopyRow& bytes(const void* p, size_t n) {
    return sep(), copy_text::append_bytea(out_, static_cast<const uint8_t*>(p), n), *this;
  }
  template <size_t N>
  CopyRow& key(const std::array<uint8_t, N>& k) { return bytes(k.data(), N); }
  template <size_t N>
  CopyRow& key_or_null(const std::array<uint8_t, N>& k) { return k == std::array<uint8_t, N>{} ? null() : key(k); }
  CopyRow& number(int64_t v) { return sep(), out_ += std::to_string(v), *this; }
  CopyRow& boolean(bool v) { return sep(), out_ += v ? "t" : "f", *this; }
  CopyRow& time(uint64_t unix_seconds) { return sep(), copy_text::append_timestamp(out_, unix_seconds), *this; }
  CopyRow& time_or_null(uint64_t unix_seconds) { return unix_seconds ? time(unix_seconds) : null(); }
  // Microsecond precision: "… HH:MM:SS.uuuuuu+00".
  CopyRow& time_us(uint64_t unix_seconds, uint32_t micros) {
    time(unix_seconds);
    char frac[16];
    std::snprintf(frac, sizeof frac, ".%06u", unsigned(micros % 1000000));
    out_.insert(out_.size() - 3, frac);
    return *this;
  }
  CopyRow& null() { return sep(), copy_text::append_null(out_), *this; }

 private:
  void sep() {
    if (!first_) out_.push_back('\t');
    first_ = false;
  }
  std::string& out_;
  bool first_ = true;
};

}  // namespace buzz::migrate
