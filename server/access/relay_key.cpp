// Relay key loading; see relay_key.h.
#include "server/access/relay_key.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>

namespace buzz::server {

using engine::Error;

engine::Result<engine::Keypair> load_or_create_key_file(const std::string& path, bool* created) {
  *created = false;
  std::ifstream in(path);
  if (in) {
    std::stringstream ss;
    ss << in.rdbuf();
    std::string hex = ss.str();
    while (!hex.empty() && std::isspace(static_cast<unsigned char>(hex.back()))) hex.pop_back();
    engine::SecretKey sk;
    auto kp = engine::from_hex(hex, &sk) ? engine::keypair_from_secret(sk) : std::nullopt;
    if (!kp) return Error{path + " does not hold a valid 64-character hex secret key"};
    return *kp;
  }
  engine::Keypair kp = engine::generate_keypair();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Error{"cannot create " + path + ": " + strerror(errno)};
  std::string text = engine::to_hex(kp.secret) + "\n";
  bool ok = ::write(fd, text.data(), text.size()) == ssize_t(text.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) return Error{"cannot write " + path};
  *created = true;
  return kp;
}

engine::Result<engine::Keypair> load_relay_key(const std::string& data_dir, const std::string& configured_hex) {
  if (!configured_hex.empty()) {
    engine::SecretKey sk;
    if (!engine::from_hex_any_case(configured_hex, sk.data(), sk.size())) {
      return Error{"BUZZ_RELAY_PRIVATE_KEY must be 64 hex characters"};
    }
    auto kp = engine::keypair_from_secret(sk);
    if (!kp) return Error{"BUZZ_RELAY_PRIVATE_KEY is not a valid secp256k1 secret key"};
    return *kp;
  }
  bool created;
  return load_or_create_key_file(data_dir + "/relay.key", &created);
}

}  // namespace buzz::server
