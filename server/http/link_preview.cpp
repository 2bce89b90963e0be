// Link previews; see link_preview.h.
#include "server/http/link_preview.h"

#include <algorithm>
#include <cctype>

#include "engine/base64.h"
#include "engine/json_text.h"
#include "engine/mime_sniff.h"
#include "engine/text.h"
#include "server/common/api_error.h"
#include "server/media/thumbnail.h"

namespace buzz::server {
namespace {

constexpr size_t kMaxTitle = 300;
constexpr size_t kMaxDescription = 600;
constexpr uint32_t kPictureBox = 240;
constexpr uint64_t kMaxPicturePixels = 8'000'000;  // 32 MB of RGBA a worker at most
constexpr auto kKeep = std::chrono::hours(1);
constexpr auto kKeepFailure = std::chrono::minutes(5);
constexpr const char* kUserAgent = "buzz-link-preview";

// &amp; &lt; &gt; &quot; &#39; &#NN; &#xNN; and runs of white space as one space.
std::string decode_text(std::string_view s, size_t max) {
  std::string out;
  auto put = [&out](uint32_t cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | cp >> 6), out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | cp >> 12), out += char(0x80 | (cp >> 6 & 0x3F)), out += char(0x80 | (cp & 0x3F));
    } else if (cp <= 0x10FFFF) {
      out += char(0xF0 | cp >> 18), out += char(0x80 | (cp >> 12 & 0x3F)), out += char(0x80 | (cp >> 6 & 0x3F)),
          out += char(0x80 | (cp & 0x3F));
    }
  };
  for (size_t i = 0; i < s.size() && out.size() < max; ++i) {
    const char c = s[i];
    if (std::isspace(uint8_t(c))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
      continue;
    }
    size_t semi = c == '&' ? s.find(';', i) : std::string_view::npos;
    if (semi == std::string_view::npos || semi - i > 10) {
      out += c;
      continue;
    }
    const std::string_view name = s.substr(i + 1, semi - i - 1);
    static const std::pair<std::string_view, uint32_t> kNamed[] = {
        {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}, {"nbsp", ' '}, {"#39", '\''}};
    auto named = std::find_if(std::begin(kNamed), std::end(kNamed), [&](const auto& n) { return n.first == name; });
    if (named != std::end(kNamed)) {
      put(named->second);
    } else if (name.size() > 1 && name[0] == '#') {
      const bool hex = name[1] == 'x' || name[1] == 'X';
      const std::string digits(name.substr(hex ? 2 : 1));
      char* end = nullptr;
      const unsigned long cp = std::strtoul(digits.c_str(), &end, hex ? 16 : 10);
      if (digits.empty() || *end || cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)) {
        out += c;
        continue;
      }
      put(uint32_t(cp));
    } else {
      out += c;
      continue;
    }
    i = semi;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() >= max) {  // cut on a character boundary
    out.resize(max);
    while (!out.empty() && (uint8_t(out.back()) & 0xC0) == 0x80) out.pop_back();
    if (!out.empty() && uint8_t(out.back()) >= 0xC0) out.pop_back();
    out += "\xE2\x80\xA6";
  }
  return out;
}

// The value of one attribute in a tag's text (`<meta property="og:title" content="…">`).
std::string attribute(std::string_view tag, std::string_view name) {
  const std::string low = engine::lower(tag);
  for (size_t at = low.find(name); at != std::string::npos; at = low.find(name, at + 1)) {
    if (at == 0 || !std::isspace(uint8_t(low[at - 1]))) continue;
    size_t i = at + name.size();
    while (i < low.size() && std::isspace(uint8_t(low[i]))) ++i;
    if (i >= low.size() || low[i] != '=') continue;
    ++i;
    while (i < low.size() && std::isspace(uint8_t(low[i]))) ++i;
    if (i >= low.size()) return {};
    if (low[i] == '"' || low[i] == '\'') {
      const size_t end = tag.find(tag[i], i + 1);
      return std::string(tag.substr(i + 1, end == std::string_view::npos ? std::string_view::npos : end - i - 1));
    }
    const size_t end = tag.find_first_of(" \t\r\n>", i);
    return std::string(tag.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i));
  }
  return {};
}

// "webhook error: SSRF blocked: …" said for a link: "no preview: SSRF blocked: …".
net::HttpResponse refusal(int status, std::string_view why) {
  constexpr std::string_view kPrefix = "webhook error: ";
  if (why.starts_with(kPrefix)) why.remove_prefix(kPrefix.size());
  return api_error(status, "no preview: " + std::string(why));
}

// The client's cap: the larger of a page's and a picture's (each request asks for its own).
OutboundHttp::Options client_options(const LinkPreviews::Options& o) {
  OutboundHttp::Options http = o.http;
  http.max_body_bytes = std::max(o.max_page_bytes, o.max_image_bytes);
  http.timeout_ms = o.page_timeout_ms;
  return http;
}

}  // namespace

std::string resolve_url(std::string_view base, std::string_view ref) {
  std::string r(ref);
  r.erase(0, r.find_first_not_of(" \t\r\n"));
  if (const size_t e = r.find_last_not_of(" \t\r\n"); e != std::string::npos) r.erase(e + 1);
  const std::string low = engine::lower(r);
  if (low.starts_with("http://") || low.starts_with("https://")) return r;
  const size_t scheme_end = base.find("://");
  if (scheme_end == std::string_view::npos || r.empty()) return {};
  if (r.starts_with("//")) return std::string(base.substr(0, scheme_end + 1)) + r;
  if (low.find(':') != std::string::npos && low.find(':') < low.find('/')) return {};  // another scheme (data:, javascript:)
  const size_t host_end = base.find('/', scheme_end + 3);
  const std::string origin(base.substr(0, host_end));
  if (r.starts_with('/')) return origin + r;
  std::string dir = host_end == std::string_view::npos ? origin + "/" : std::string(base.substr(0, base.rfind('/') + 1));
  return dir + r;
}

PagePreview parse_page_preview(std::string_view html, std::string_view page_url) {
  PagePreview p;
  std::string og_title, og_description, og_image, meta_description, tw_image;
  const std::string low = engine::lower(html);
  for (size_t at = low.find("<meta"); at != std::string::npos; at = low.find("<meta", at + 5)) {
    const size_t end = low.find('>', at);
    if (end == std::string::npos) break;
    const std::string_view tag = html.substr(at, end - at);
    std::string key = engine::lower(attribute(tag, "property"));
    if (key.empty()) key = engine::lower(attribute(tag, "name"));
    if (key.empty()) continue;
    const std::string content = attribute(tag, "content");
    if (key == "og:title" && og_title.empty()) og_title = content;
    if (key == "og:description" && og_description.empty()) og_description = content;
    if ((key == "og:image" || key == "og:image:url") && og_image.empty()) og_image = content;
    if (key == "twitter:image" && tw_image.empty()) tw_image = content;
    if (key == "og:site_name" && p.site_name.empty()) p.site_name = decode_text(content, kMaxTitle);
    if (key == "description" && meta_description.empty()) meta_description = content;
  }
  std::string title = og_title;
  if (title.empty()) {
    const size_t open = low.find("<title");
    const size_t start = open == std::string::npos ? open : low.find('>', open);
    const size_t close = start == std::string::npos ? start : low.find("</title", start);
    if (close != std::string::npos) title = std::string(html.substr(start + 1, close - start - 1));
  }
  p.title = decode_text(title, kMaxTitle);
  p.description = decode_text(og_description.empty() ? meta_description : og_description, kMaxDescription);
  const std::string image = og_image.empty() ? tw_image : og_image;
  if (!image.empty()) p.image_url = resolve_url(page_url, decode_text(image, 2048));
  return p;
}

LinkPreviews::LinkPreviews(Options options) : options_(std::move(options)), http_(client_options(options_)) {
  for (size_t i = 0; i < options_.workers; ++i) workers_.emplace_back([this] { work(); });
}

void LinkPreviews::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) {
    if (t.joinable()) t.join();
  }
}

std::optional<net::HttpResponse> LinkPreviews::get(const std::string& url, Answer later) {
  std::lock_guard lock(mu_);
  if (auto hit = cache_.find(url); hit != cache_.end()) {
    if (hit->second.expires > std::chrono::steady_clock::now()) {
      lru_.splice(lru_.begin(), lru_, hit->second.lru);
      return hit->second.response;
    }
    cached_bytes_ -= hit->second.response.body.size() + url.size();
    lru_.erase(hit->second.lru);
    cache_.erase(hit);
  }
  auto waiting = waiting_.find(url);
  if (waiting != waiting_.end()) {  // being fetched already: one fetch answers both
    waiting->second.push_back(std::move(later));
    return std::nullopt;
  }
  if (queue_.size() >= options_.max_queued) return api_error(503, "no preview: too many links waiting, retry later");
  waiting_[url].push_back(std::move(later));
  queue_.push_back(url);
  wake_.notify_one();
  return std::nullopt;
}

void LinkPreviews::work() {
  std::unique_lock lock(mu_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    const std::string url = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    net::HttpResponse r = fetch(url);
    lock.lock();
    remember(url, r);
    auto answers = waiting_.extract(url);
    lock.unlock();
    if (answers) {
      for (Answer& a : answers.mapped()) a(r);
    }
    lock.lock();
  }
}

void LinkPreviews::remember(const std::string& url, const net::HttpResponse& r) {
  const size_t size = r.body.size() + url.size();
  if (size > options_.cache_bytes) return;
  while (cached_bytes_ + size > options_.cache_bytes && !lru_.empty()) {
    auto old = cache_.find(lru_.back());
    cached_bytes_ -= old->second.response.body.size() + old->first.size();
    cache_.erase(old);
    lru_.pop_back();
  }
  lru_.push_front(url);
  const auto keep = r.status == 200 ? std::chrono::steady_clock::duration(kKeep) : kKeepFailure;
  cache_[url] = Cached{r, std::chrono::steady_clock::now() + keep, lru_.begin()};
  cached_bytes_ += size;
}

net::HttpResponse LinkPreviews::fetch(const std::string& url) const {
  std::string at = url;
  OutboundHttp::Request request;
  request.method = "GET";
  request.headers = {{"Accept", "text/html,application/xhtml+xml"}};
  request.timeout_ms = options_.page_timeout_ms;
  request.max_body_bytes = options_.max_page_bytes;
  request.truncate = true;
  request.user_agent = kUserAgent;
  for (int hop = 0;; ++hop) {
    request.url = at;
    auto page = http_.send(request);
    if (!page) return refusal(502, page.error());
    if (page->status >= 300 && page->status < 400 && !page->location.empty()) {
      if (hop == options_.max_redirects) return refusal(502, "too many redirects");
      at = resolve_url(at, page->location);
      if (at.empty()) return refusal(502, "a redirect to an unusable address");
      continue;
    }
    if (page->status != 200) return refusal(502, "the page answered HTTP " + std::to_string(page->status));
    if (!engine::lower(page->content_type).starts_with("text/html") && !engine::lower(page->content_type).starts_with("application/xhtml")) {
      return refusal(502, "not a web page (" + (page->content_type.empty() ? "no type" : page->content_type) + ")");
    }
    PagePreview p = parse_page_preview(page->body, at);
    if (p.title.empty() && p.description.empty()) return refusal(502, "the page says nothing to show");
    const std::string image = p.image_url.empty() ? std::string() : picture(p.image_url);
    return net::HttpResponse::json(200, json_object({
                                            {"url", json_string(at)},
                                            {"title", json_string(p.title)},
                                            {"description", json_string(p.description)},
                                            {"site_name", json_string(p.site_name)},
                                            {"image", image.empty() ? "null" : json_string(image)},
                                        }));
  }
}

std::string LinkPreviews::picture(const std::string& url) const {
  OutboundHttp::Request request;
  request.method = "GET";
  request.url = url;
  request.timeout_ms = options_.page_timeout_ms;
  request.max_body_bytes = options_.max_image_bytes;
  request.binary = true;
  request.user_agent = kUserAgent;
  auto got = http_.send(request);
  if (!got || got->status != 200) return {};
  // The type from the bytes, as for an upload; decode_image takes JPEG, PNG, GIF and WebP only (never SVG).
  auto type = engine::sniff_mime(std::string_view(got->body).substr(0, engine::kSniffBytes));
  if (!type || !*type) return {};
  auto pixels = decode_image(**type, got->body, kMaxPicturePixels);
  if (!pixels) return {};
  auto jpeg = encode_jpeg(fit_within(*pixels, kPictureBox), kThumbnailQuality);
  if (!jpeg) return {};
  return "data:image/jpeg;base64," + engine::encode_base64(*jpeg);
}

}  // namespace buzz::server
