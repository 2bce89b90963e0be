#include "server/media/file_types.h"

#include <algorithm>
#include <array>
#include <utility>

namespace buzz::server {
namespace {

constexpr std::string_view kDenied[] = {
    "text/html", "application/xhtml+xml", "image/svg+xml", "application/javascript", "text/javascript",
    "application/x-msdownload", "application/x-executable", "application/vnd.microsoft.portable-executable",
    "application/x-mach-binary", "application/x-sharedlib", "application/x-elf", "application/x-msi",
    "application/vnd.android.package-archive", "application/x-apple-diskimage",
    // libmagic's names for executables the list above means.
    "application/x-pie-executable", "application/x-dosexec", "application/x-object", "application/x-coredump"};

constexpr std::string_view kOfficeXml = "application/vnd.openxmlformats-officedocument.";

constexpr std::pair<std::string_view, std::string_view> kExtensions[] = {
    {"application/pdf", "pdf"},
    {"application/msword", "doc"},
    {"application/vnd.ms-excel", "xls"},
    {"application/vnd.ms-powerpoint", "ppt"},
    {"application/vnd.oasis.opendocument.text", "odt"},
    {"application/vnd.oasis.opendocument.spreadsheet", "ods"},
    {"application/vnd.oasis.opendocument.presentation", "odp"},
    {"application/rtf", "rtf"},
    {"text/rtf", "rtf"},
    {"application/epub+zip", "epub"},
    {"application/json", "json"},
    {"text/csv", "csv"},
    {"text/plain", "txt"},
    {"application/zip", "zip"},
    {"application/gzip", "gz"},
    {"application/x-gzip", "gz"},
    {"application/x-tar", "tar"},
    {"application/x-7z-compressed", "7z"},
    {"application/x-rar-compressed", "rar"},
    {"application/x-rar", "rar"},
    {"application/vnd.rar", "rar"},
    {"application/x-bzip2", "bz2"},
    {"application/x-xz", "xz"},
    {"application/zstd", "zst"},
    {"audio/mpeg", "mp3"},
    {"audio/mp4", "m4a"},
    {"audio/m4a", "m4a"},
    {"audio/x-m4a", "m4a"},
    {"audio/flac", "flac"},
    {"audio/x-flac", "flac"},
    {"audio/wav", "wav"},
    {"audio/x-wav", "wav"},
    {"audio/ogg", "ogg"},
    {"audio/aac", "aac"},
    {"audio/opus", "opus"},
    {"video/mp4", "mp4"},
    {"video/quicktime", "mov"},
    {"video/webm", "webm"},
    {"video/x-matroska", "mkv"},
    {"image/bmp", "bmp"},
    {"image/tiff", "tiff"},
    {"image/heic", "heic"},
    {"image/avif", "avif"},
    {"image/vnd.microsoft.icon", "ico"},
};

}  // namespace

std::string_view image_extension(std::string_view mime) {
  if (mime == "image/jpeg") return "jpg";
  if (mime == "image/png") return "png";
  if (mime == "image/gif") return "gif";
  if (mime == "image/webp") return "webp";
  return "";
}

bool denied_file_type(std::string_view mime) { return std::ranges::find(kDenied, mime) != std::end(kDenied); }

std::string_view file_extension(std::string_view mime) {
  if (mime.starts_with(kOfficeXml)) {
    std::string_view kind = mime.substr(kOfficeXml.size());
    if (kind == "wordprocessingml.document") return "docx";
    if (kind == "spreadsheetml.sheet") return "xlsx";
    if (kind == "presentationml.presentation") return "pptx";
  }
  for (const auto& [type, ext] : kExtensions) {
    if (type == mime) return ext;
  }
  return "bin";
}

}  // namespace buzz::server
