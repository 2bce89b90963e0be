// call_webhook (docs/reference/workflows.md §9.5): the templated request, checked and sent by
// OutboundHttp. Non-2xx answers are outputs, not failures. Run threads only.
#include <chrono>

#include "server/workflows/template.h"
#include "server/workflows/workflows.h"

namespace buzz::server {
namespace {

// An HTTP token (RFC 9110 tchar): nothing a request line or header could be split with.
bool is_token(std::string_view s) {
  if (s.empty() || s.size() > 32) return false;
  for (char c : s) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
    if (!ok) return false;
  }
  return true;
}

bool has_line_break(std::string_view s) { return s.find_first_of("\r\n") != std::string_view::npos || s.find('\0') != std::string_view::npos; }

}  // namespace

engine::Result<StepOutput> Workflows::call_webhook(const Step& step, const RunContext& context, uint64_t timeout) {
  OutboundHttp::Request request;
  auto url = render_template(step.field("url").value_or(""), context);
  if (!url) return engine::Error{url.error()};
  request.url = *url;
  request.method = step.field("method").value_or("POST");
  if (!is_token(request.method)) return engine::Error{"webhook error: invalid HTTP method: " + request.method};
  if (step.headers) {
    for (const auto& [name, value] : *step.headers) {
      auto rendered = render_template(value, context);
      if (!rendered) return engine::Error{rendered.error()};
      if (!is_token(name) || has_line_break(*rendered)) return engine::Error{"webhook error: invalid header: " + name};
      request.headers.emplace_back(name, *rendered);
    }
  }
  if (auto body = step.field("body")) {
    auto rendered = render_template(*body, context);
    if (!rendered) return engine::Error{rendered.error()};
    request.body = std::move(*rendered);
  }
  request.timeout_ms = timeout * 1000;
  const auto started = std::chrono::steady_clock::now();
  auto response = http_.send(request);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  counters_.webhook_calls.fetch_add(1, std::memory_order_relaxed);
  counters_.webhook_ms_total.fetch_add(uint64_t(ms.count()), std::memory_order_relaxed);
  if (!response) {
    if (timeout * 1000 < http_.options().timeout_ms && response.error().find("imeout") != std::string::npos) {
      return engine::Error{"step '" + step.id + "' timed out after " + std::to_string(timeout) + "s"};
    }
    return engine::Error{response.error()};
  }
  return StepOutput{{"status", OutputValue::integer(response->status)}, {"body", OutputValue::string(response->body)}};
}

}  // namespace buzz::server
