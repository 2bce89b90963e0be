// Canonical serialization; see canonical.h.
#include "engine/canonical.h"

#include <openssl/evp.h>

#include <cstdlib>

namespace buzz::engine {

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  size_t run = 0;  // start of the pending run of bytes that need no escape
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\b': out.append("\\b"); break;
      case '\t': out.append("\\t"); break;
      case '\n': out.append("\\n"); break;
      case '\f': out.append("\\f"); break;
      case '\r': out.append("\\r"); break;
      default: {
        char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]};
        out.append(esc, 6);
      }
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

void append_json_tags(std::string& out, const std::vector<Tag>& tags) {
  out.push_back('[');
  for (size_t i = 0; i < tags.size(); ++i) {
    if (i) out.push_back(',');
    out.push_back('[');
    for (size_t j = 0; j < tags[i].size(); ++j) {
      if (j) out.push_back(',');
      append_json_string(out, tags[i][j]);
    }
    out.push_back(']');
  }
  out.push_back(']');
}

void canonical_serialization(const Event& e, std::string& out) {
  out.clear();
  out.append("[0,\"");
  char hex[64];
  hex_encode(e.pubkey.data(), 32, hex);
  out.append(hex, 64);
  out.append("\",");
  out.append(std::to_string(e.created_at));
  out.push_back(',');
  out.append(std::to_string(e.kind));
  out.push_back(',');
  append_json_tags(out, e.tags);
  out.push_back(',');
  append_json_string(out, e.content);
  out.push_back(']');
}

// OpenSSL 3's one-shot SHA256() looks the algorithm up (a locked fetch) on every
// call; the id of every ingested event is one call, so each thread keeps a
// fetched algorithm and a context to reuse.
void sha256(const void* data, size_t len, uint8_t out[32]) {
  struct Hasher {
    EVP_MD* md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    ~Hasher() {
      EVP_MD_CTX_free(ctx);
      EVP_MD_free(md);
    }
  };
  thread_local Hasher h;
  unsigned int n = 0;
  bool ok = h.md && h.ctx && EVP_DigestInit_ex2(h.ctx, h.md, nullptr) == 1 &&
            EVP_DigestUpdate(h.ctx, data, len) == 1 && EVP_DigestFinal_ex(h.ctx, out, &n) == 1 && n == 32;
  if (!ok) std::abort();  // only when OpenSSL cannot allocate or lacks SHA-256 altogether
}

Id compute_id(const Event& e) {
  thread_local std::string buf;
  canonical_serialization(e, buf);
  Id id;
  sha256(buf.data(), buf.size(), id.data());
  return id;
}

}  // namespace buzz::engine
