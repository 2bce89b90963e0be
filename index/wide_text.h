// UTF-8 to wchar_t (UTF-32 on Linux) for CLucene's wide-character API.
//
// Event content is client input, so the decoder accepts any bytes: every
// ill-formed sequence (stray continuation bytes, truncated or overlong forms,
// surrogates, code points past U+10FFFF) becomes one U+FFFD per offending byte,
// and NUL becomes a space because CLucene reads its strings up to a NUL.
#pragma once

#include <string>
#include <string_view>

namespace buzz::index {

static_assert(sizeof(wchar_t) == 4, "CLucene's TCHAR is a UTF-32 wchar_t on this platform");

std::wstring utf8_to_wide(std::string_view utf8);

// For text that is ASCII by construction (hex ids, decimal numbers).
std::wstring ascii_to_wide(std::string_view ascii);
std::string wide_to_ascii(std::wstring_view wide);

}  // namespace buzz::index
