// Unit tests for server/nip_oa: the owner's signature binds agent and
// conditions, NIP-26 condition rules (kinds OR'ed, time bounds AND'ed, any
// unknown clause fails), one `auth` tag only, and the X-Auth-Tag JSON form.
#include "server/access/nip_oa.h"

#include <gtest/gtest.h>

namespace buzz::server {
namespace {

using engine::Keypair;

class NipOa : public ::testing::Test {
 protected:
  Keypair owner = engine::generate_keypair(), agent = engine::generate_keypair();
  const AttestedUse auth_now{22242, 1700000000};
};

TEST_F(NipOa, ASignedAttestationHoldsForItsAgentOnly) {
  OwnerAttestation a = sign_attestation(owner, agent.pubkey, "");
  EXPECT_TRUE(attestation_valid(a, agent.pubkey, auth_now));
  EXPECT_FALSE(attestation_valid(a, engine::generate_keypair().pubkey, auth_now));
  OwnerAttestation forged = a;
  forged.owner = engine::generate_keypair().pubkey;
  EXPECT_FALSE(attestation_valid(forged, agent.pubkey, auth_now));
  OwnerAttestation widened = sign_attestation(owner, agent.pubkey, "kind=1");
  widened.conditions = "kind=22242";  // the signature covers the conditions
  EXPECT_FALSE(attestation_valid(widened, agent.pubkey, auth_now));
}

TEST_F(NipOa, ConditionsFollowNip26) {
  auto holds = [&](const std::string& conditions, AttestedUse use) {
    return attestation_valid(sign_attestation(owner, agent.pubkey, conditions), agent.pubkey, use);
  };
  EXPECT_TRUE(holds("kind=22242", auth_now));
  EXPECT_FALSE(holds("kind=1", auth_now));
  EXPECT_TRUE(holds("kind=1&kind=22242", auth_now));  // any one kind
  EXPECT_TRUE(holds("created_at>1600000000&created_at<1800000000", auth_now));
  EXPECT_FALSE(holds("created_at<1700000000", auth_now));  // strict bounds
  EXPECT_FALSE(holds("created_at>1700000000", auth_now));
  EXPECT_FALSE(holds("kind=22242&created_at<1600000000", auth_now));  // every bound
  EXPECT_FALSE(holds("kind=22242&role=admin", auth_now));  // unknown clause
  EXPECT_FALSE(holds("kind=abc", auth_now));
  EXPECT_FALSE(holds("created_at<", auth_now));
  EXPECT_FALSE(holds("kind=22242", {std::nullopt, 1700000000}));  // a bearer token has no kind
  EXPECT_TRUE(holds("created_at<1800000000", {std::nullopt, 1700000000}));
}

TEST_F(NipOa, AnAuthEventCarriesExactlyOneAttestation) {
  OwnerAttestation a = sign_attestation(owner, agent.pubkey, "kind=22242");
  engine::Tag tag = {"auth", engine::to_hex(a.owner), a.conditions, engine::to_hex(a.sig)};
  engine::Event e;
  e.tags = {{"relay", "ws://x"}, tag};
  auto found = attestation_of(e);
  ASSERT_TRUE(found);
  EXPECT_TRUE(attestation_valid(*found, agent.pubkey, auth_now));
  e.tags.push_back(tag);
  EXPECT_FALSE(attestation_of(e));  // two count as none
  e.tags = {{"auth", engine::to_hex(a.owner), a.conditions}};
  EXPECT_FALSE(attestation_of(e));
  e.tags = {{"auth", "not hex", a.conditions, engine::to_hex(a.sig)}};
  EXPECT_FALSE(attestation_of(e));
}

TEST_F(NipOa, HeaderJsonRoundTripsAndRefusesOtherShapes) {
  OwnerAttestation a = sign_attestation(owner, agent.pubkey, "kind=27235&created_at<1800000000");
  auto parsed = parse_attestation_json(attestation_json(a));
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed->owner, a.owner);
  EXPECT_EQ(parsed->conditions, a.conditions);
  EXPECT_EQ(parsed->sig, a.sig);
  for (const char* bad : {"", "{}", "[\"auth\"]", "[\"auth\",\"a\",\"b\",\"c\",\"d\"]", "[1,2,3,4]",
                          "[\"nope\",\"00\",\"\",\"00\"]"}) {
    EXPECT_FALSE(parse_attestation_json(bad)) << bad;
  }
}

}  // namespace
}  // namespace buzz::server
