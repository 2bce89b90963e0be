// What an upload's sniffed MIME type means for storing it (docs/reference/media.md §3.2,
// §3.4): the four previewable image types and their extensions, the types no
// upload may have (active content and executables), and the extension a
// generic file is stored and served under.
#pragma once

#include <string_view>

namespace buzz::server {

// "jpg", "png", "gif" or "webp" for the previewable image types; "" otherwise.
std::string_view image_extension(std::string_view mime);

// HTML, SVG, JavaScript and executables of every platform (§3.4's deny-list,
// plus the names libmagic gives the same things: application/x-pie-executable,
// application/x-dosexec).
bool denied_file_type(std::string_view mime);

// §3.4's table ("pdf", "docx", "zip", "mp3", …); "bin" for a type it does not name.
std::string_view file_extension(std::string_view mime);

}  // namespace buzz::server
