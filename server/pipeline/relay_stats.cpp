// The label table of RelayStats::media_uploads; see relay_stats.h.
#include "server/pipeline/relay_stats.h"

namespace buzz::server {

size_t media_upload_label(std::string_view mime) {
  for (size_t i = 0; i + 1 < kMediaUploadLabels.size(); ++i) {
    if (kMediaUploadLabels[i] == mime) return i;
  }
  return kMediaUploadLabels.size() - 1;  // "other"
}

}  // namespace buzz::server
