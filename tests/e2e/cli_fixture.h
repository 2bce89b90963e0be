// CliFixture: one real relay per suite and the `buzz` agent CLI run against it
// as a child process, with the identity of one of the suite's users in its
// environment (BUZZ_RELAY_URL, BUZZ_API_TOKEN, BUZZ_PRIVATE_KEY). Effects are
// checked over REST with the same user's NIP-98 signature, not through the CLI.
//
// Self-minted tokens (`buzz auth`) hold the eight self-service scopes; kinds
// 9000, 9001 and 9008 need admin:channels as well, which only the operator
// grants. So before the relay starts, `buzz admin mint-token` gives the
// suite's admin() a token with it, as an operator would.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/event_parse.h"
#include "engine/signature.h"
#include "tests/e2e/api_fixture.h"
#include "tests/e2e/channel_fixture.h"
#include "tests/e2e/cli_process.h"
#include "tests/e2e/scratch_dir.h"

namespace buzz::test {

// A user the CLI acts as: its key and the token `buzz auth` minted for it.
struct CliUser {
  engine::Keypair key;
  std::string hex, token;
};

template <class Suite>
class CliFixture : public ApiFixture<Suite> {
 protected:
  using Base = ApiFixture<Suite>;

  static void SetUpTestSuite() {
    scratch_ = std::make_unique<ScratchDir>("cli");
    dir_ = *scratch_ / "data";
    admin_.key = engine::generate_keypair();
    admin_.hex = engine::to_hex(admin_.key.pubkey);
    int status = -1;
    const std::string out = run_buzz("admin mint-token --data-dir " + dir_ + " --pubkey " + admin_.hex +
                                         " --name cli-admin --json --scopes messages:read,messages:write,channels:read,"
                                         "channels:write,users:read,users:write,admin:channels",
                                     &status);
    ASSERT_EQ(status, 0) << out;
    admin_.token = json_str(out, "token");
    std::string error;
    Base::relay_ = RelayProcess::start(RelayOptions{{"--open"}, {}, dir_}, &error);
    ASSERT_NE(Base::relay_, nullptr) << error;
  }
  static void TearDownTestSuite() {
    Base::relay_.reset();
    scratch_.reset();
  }
  // A user whose token also holds admin:channels.
  static const CliUser& admin() { return admin_; }

  // The relay's URL as the CLI is given it: ws:// on purpose, which the CLI maps to http://.
  static std::string relay_env() { return Base::relay_->relay_url() + "/"; }
  static std::string secret_hex(const CliUser& u) { return engine::to_hex(u.key.secret); }

  // A fresh user with a token minted by `buzz auth`.
  static CliUser new_user() {
    CliUser u;
    u.key = engine::generate_keypair();
    u.hex = engine::to_hex(u.key.pubkey);
    CliRun minted = run_cli({"auth"}, {{"BUZZ_RELAY_URL", relay_env()}, {"BUZZ_PRIVATE_KEY", secret_hex(u)}});
    EXPECT_EQ(minted.status, 0) << minted.err;
    u.token = minted.out.substr(0, minted.out.find('\n'));
    return u;
  }

  // `buzz <args>` as u (token and key both set).
  static CliRun cli(const CliUser& u, const std::vector<std::string>& args, const std::string& stdin_text = "") {
    return run_cli(args, {{"BUZZ_RELAY_URL", relay_env()}, {"BUZZ_API_TOKEN", u.token}, {"BUZZ_PRIVATE_KEY", secret_hex(u)}},
                   stdin_text);
  }

  // A command that must succeed; its stdout without the final newline.
  static std::string ok(const CliUser& u, const std::vector<std::string>& args, const std::string& stdin_text = "") {
    CliRun r = cli(u, args, stdin_text);
    EXPECT_EQ(r.status, 0) << args[0] << ": " << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_TRUE(r.out.ends_with("\n")) << r.out;
    return r.out.empty() ? r.out : r.out.substr(0, r.out.size() - 1);
  }

  // A write that must be accepted; the stored event's id.
  static std::string accepted(const CliUser& u, const std::vector<std::string>& args, const std::string& stdin_text = "") {
    std::string body = ok(u, args, stdin_text);
    EXPECT_NE(body.find("\"accepted\":true"), std::string::npos) << args[0] << ": " << body;
    return json_str(body, "event_id");
  }

  // The stored event with this id, read over REST as u.
  static std::optional<engine::Event> stored(const CliUser& u, const std::string& id) {
    HttpReply r = Base::get(u.key, "/api/events/" + id);
    if (r.status != 200) return std::nullopt;
    auto e = engine::parse_event_json(r.body);
    return e ? std::optional<engine::Event>(*e) : std::nullopt;
  }

  // A new channel created with the CLI by u; its UUID.
  static std::string new_channel(const CliUser& u, const std::string& type = "stream", const std::string& visibility = "open") {
    const std::string id = accepted(u, {"create-channel", "--name", unique_text("cli"), "--type", type, "--visibility", visibility});
    auto e = stored(u, id);
    EXPECT_TRUE(e.has_value()) << "kind 9007 " << id << " not readable";
    return e ? std::string(e->first_tag_value("h")) : "";
  }

 private:
  static inline std::unique_ptr<ScratchDir> scratch_;
  static inline std::string dir_;
  static inline CliUser admin_;
};

// One stderr error line's category and message.
inline std::pair<std::string, std::string> error_of(const CliRun& r) {
  return {json_str(r.err, "error"), json_str(r.err, "message")};
}

}  // namespace buzz::test
