#include "tools/cli/relay_http.h"

#include <curl/curl.h>
#include <dlfcn.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <type_traits>

#include "tools/cli/cli_error.h"
#include "tools/client/http_client.h"
#include "tools/client/url.h"

namespace buzz::cli {
namespace {

constexpr auto kConnectTimeout = std::chrono::seconds(5);
constexpr auto kRequestTimeout = std::chrono::seconds(10);

// libcurl is loaded on its first request, not named by the binary: with the
// ~30 libraries behind it (GnuTLS, Kerberos, LDAP, …), loading it costs more
// than the rest of a loopback `buzz send-message` (docs/performance.md, CLI
// start-up).
struct Curl {
  decltype(&curl_global_init) global_init;
  decltype(&curl_global_cleanup) global_cleanup;
  decltype(&curl_easy_init) easy_init;
  decltype(&curl_easy_cleanup) easy_cleanup;
  decltype(&curl_easy_setopt) easy_setopt;
  decltype(&curl_easy_perform) easy_perform;
  decltype(&curl_easy_getinfo) easy_getinfo;
  decltype(&curl_easy_strerror) easy_strerror;
  decltype(&curl_slist_append) slist_append;
  decltype(&curl_slist_free_all) slist_free_all;
};

const Curl& curl() {
  static const Curl loaded = [] {
    void* lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) throw CliError(Category::kOther, std::string("could not load libcurl: ") + dlerror());
    auto bind = [lib](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      if (!fn) throw CliError(Category::kOther, std::string("libcurl has no ") + name);
    };
    Curl c{};
    bind(c.global_init, "curl_global_init");
    bind(c.global_cleanup, "curl_global_cleanup");
    bind(c.easy_init, "curl_easy_init");
    bind(c.easy_cleanup, "curl_easy_cleanup");
    bind(c.easy_setopt, "curl_easy_setopt");
    bind(c.easy_perform, "curl_easy_perform");
    bind(c.easy_getinfo, "curl_easy_getinfo");
    bind(c.easy_strerror, "curl_easy_strerror");
    bind(c.slist_append, "curl_slist_append");
    bind(c.slist_free_all, "curl_slist_free_all");
    return c;
  }();
  return loaded;
}

size_t on_data(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

bool set(const char* name) {
  const char* value = std::getenv(name);
  return value && *value;
}

}  // namespace

RelayHttp::RelayHttp() = default;

RelayHttp::~RelayHttp() {
  if (!curl_) return;
  curl().easy_cleanup(static_cast<CURL*>(curl_));
  curl().global_cleanup();
}

HttpAnswer RelayHttp::call(const std::string& method, const std::string& url, const Headers& headers,
                           const std::string& body) {
  // libcurl reads the proxy variables (http_proxy for http:// in lower case only) and no_proxy itself.
  const bool proxied = set("http_proxy") || set("all_proxy") || set("ALL_PROXY");
  return proxied ? call_curl(method, url, headers, body) : call_plain(method, url, headers, body);
}

HttpAnswer RelayHttp::call_plain(const std::string& method, const std::string& url, const Headers& headers,
                                 const std::string& body) {
  // What the own client does not take (another scheme, user:password@) goes to libcurl.
  const std::optional<client::UrlParts> at = client::split_url(url, "http://");
  if (!at) return call_curl(method, url, headers, body);
  const auto deadline = std::chrono::steady_clock::now() + kRequestTimeout;
  auto failed = [&](const std::string& why) {
    plain_.reset();
    return CliError(Category::kNetwork, "request to " + url + " failed: " + why);
  };
  if (plain_ && (plain_authority_ != at->authority || !plain_->reusable())) plain_.reset();
  if (!plain_) {
    try {
      plain_ = std::make_unique<client::HttpClient>(at->host, at->port, at->authority,
                                                    std::min(deadline, std::chrono::steady_clock::now() + kConnectTimeout));
    } catch (const std::runtime_error& e) {
      throw failed(e.what());
    }
    plain_authority_ = at->authority;
  }
  plain_->set_deadline(deadline);
  client::HttpReply reply = plain_->call(method, at->target, headers, body);
  if (reply.status == 0) {
    const bool late = std::chrono::steady_clock::now() >= deadline;
    throw failed(late ? "no answer within " + std::to_string(kRequestTimeout.count()) + " s" : plain_->error());
  }
  return {reply.status, std::move(reply.body)};
}

HttpAnswer RelayHttp::call_curl(const std::string& method, const std::string& url, const Headers& headers,
                                const std::string& body) {
  const Curl& lib = curl();
  if (!curl_) {
    lib.global_init(CURL_GLOBAL_DEFAULT);
    if (!(curl_ = lib.easy_init())) throw CliError(Category::kOther, "could not start the HTTP client");
  }
  CURL* c = static_cast<CURL*>(curl_);
  HttpAnswer answer;
  lib.easy_setopt(c, CURLOPT_URL, url.c_str());
  // A body goes as POSTFIELDS whatever the verb (PUT too); CUSTOMREQUEST names the verb.
  if (!body.empty() || method == "POST" || method == "PUT") {
    lib.easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
    lib.easy_setopt(c, CURLOPT_POSTFIELDSIZE, long(body.size()));
  } else {
    lib.easy_setopt(c, CURLOPT_HTTPGET, 1L);
  }
  lib.easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  lib.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, long(std::chrono::milliseconds(kConnectTimeout).count()));
  lib.easy_setopt(c, CURLOPT_TIMEOUT_MS, long(std::chrono::milliseconds(kRequestTimeout).count()));
  lib.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  lib.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
  lib.easy_setopt(c, CURLOPT_WRITEDATA, &answer.body);
  curl_slist* list = nullptr;
  list = lib.slist_append(list, "Expect:");  // no 100-continue round trip for larger bodies
  for (const auto& [name, value] : headers) list = lib.slist_append(list, (name + ": " + value).c_str());
  lib.easy_setopt(c, CURLOPT_HTTPHEADER, list);
  CURLcode rc = lib.easy_perform(c);
  lib.slist_free_all(list);
  lib.easy_setopt(c, CURLOPT_HTTPHEADER, nullptr);
  if (rc != CURLE_OK) {
    throw CliError(Category::kNetwork, "request to " + url + " failed: " + lib.easy_strerror(rc));
  }
  lib.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &answer.status);
  return answer;
}

}  // namespace buzz::cli
