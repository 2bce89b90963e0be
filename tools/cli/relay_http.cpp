#include "tools/cli/relay_http.h"

#include <curl/curl.h>

#include "tools/cli/cli_error.h"

namespace buzz::cli {
namespace {

size_t on_data(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

}  // namespace

RelayHttp::RelayHttp() {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  curl_ = curl_easy_init();
  if (!curl_) throw CliError(Category::kOther, "could not start the HTTP client");
}

RelayHttp::~RelayHttp() {
  curl_easy_cleanup(static_cast<CURL*>(curl_));
  curl_global_cleanup();
}

HttpAnswer RelayHttp::call(const std::string& method, const std::string& url, const Headers& headers,
                           const std::string& body) {
  CURL* c = static_cast<CURL*>(curl_);
  HttpAnswer answer;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  // A body goes as POSTFIELDS whatever the verb (PUT too); CUSTOMREQUEST names the verb.
  if (!body.empty() || method == "POST" || method == "PUT") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, long(body.size()));
  } else {
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  }
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 10000L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &answer.body);
  curl_slist* list = nullptr;
  list = curl_slist_append(list, "Expect:");  // no 100-continue round trip for larger bodies
  for (const auto& [name, value] : headers) list = curl_slist_append(list, (name + ": " + value).c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
  CURLcode rc = curl_easy_perform(c);
  curl_slist_free_all(list);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, nullptr);
  if (rc != CURLE_OK) {
    throw CliError(Category::kNetwork, "request to " + url + " failed: " + curl_easy_strerror(rc));
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &answer.status);
  return answer;
}

}  // namespace buzz::cli
