// Unit tests for the event model: engine/hex (round trip, strict lowercase),
// engine/canonical (serde_json-exact escaping of every control character, the
// NIP-01 canonical array and id), engine/signature (BIP-340 vectors, sign and
// verify round trip, check_event reasons) and engine/event_parse (every
// strictness rule of docs/reference/protocol.md §2.1, raw text kept verbatim).
// The cross-implementation vector was produced by nostr-tools (finalizeEvent)
// and the hand vector's SHA-256 by Python's hashlib; keep both verbatim, they
// pin the id to what every other Nostr implementation computes.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/canonical.h"
#include "engine/event.h"
#include "engine/event_parse.h"
#include "engine/hex.h"
#include "engine/signature.h"

namespace buzz::engine {
namespace {

template <size_t N>
std::array<uint8_t, N> hex_bytes(std::string_view text) {
  std::array<uint8_t, N> out{};
  EXPECT_TRUE(from_hex_any_case(text, out.data(), N)) << text;
  return out;
}

SecretKey secret_from_int(uint8_t n) {
  SecretKey s{};
  s[31] = n;
  return s;
}

std::string json_string(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

// ---------------------------------------------------------------------------
// hex

TEST(Hex, RoundTripsEveryByteValue) {
  std::array<uint8_t, 256> all;
  for (int i = 0; i < 256; ++i) all[i] = uint8_t(i);
  std::string text = to_hex(all);
  ASSERT_EQ(text.size(), 512u);
  EXPECT_EQ(text.substr(0, 8), "00010203");
  EXPECT_EQ(text.substr(text.size() - 8), "fcfdfeff");
  std::array<uint8_t, 256> back{};
  ASSERT_TRUE(from_hex(text, &back));
  EXPECT_EQ(back, all);
}

TEST(Hex, EncodesLowercase) {
  std::array<uint8_t, 4> b{0xAB, 0xCD, 0xEF, 0x09};
  EXPECT_EQ(to_hex(b), "abcdef09");
  char out[8];
  hex_encode(b.data(), b.size(), out);
  EXPECT_EQ(std::string(out, 8), "abcdef09");
}

TEST(Hex, DecodeRefusesUppercase) {
  std::array<uint8_t, 2> b{};
  EXPECT_FALSE(from_hex("ABcd", &b));
  EXPECT_FALSE(from_hex("abCd", &b));
  EXPECT_TRUE(from_hex("abcd", &b));
  EXPECT_EQ(b[0], 0xab);
  EXPECT_EQ(b[1], 0xcd);
}

// Every byte value at every position: only 0-9 and a-f decode.
TEST(Hex, DecodeAcceptsExactlyLowercaseDigitsAnywhere) {
  for (size_t pos = 0; pos < 4; ++pos) {
    for (int c = 0; c < 256; ++c) {
      std::string text = "abcd";
      text[pos] = char(c);
      std::array<uint8_t, 2> b{};
      bool digit = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
      ASSERT_EQ(from_hex(text, &b), digit) << "byte " << c << " at " << pos;
    }
  }
}

TEST(Hex, DecodeRefusesWrongLengthAndNonHex) {
  std::array<uint8_t, 2> b{};
  EXPECT_FALSE(from_hex("abc", &b));
  EXPECT_FALSE(from_hex("abcde", &b));
  EXPECT_FALSE(from_hex("", &b));
  EXPECT_FALSE(from_hex("abcdef", &b));
  EXPECT_FALSE(from_hex("abcg", &b));
  EXPECT_FALSE(from_hex("ab c", &b));
  EXPECT_FALSE(from_hex("0x12", &b));
  EXPECT_FALSE(from_hex(std::string_view("ab\0d", 4), &b));
  uint8_t raw[2];
  EXPECT_FALSE(hex_decode("abc", raw, 2));
  EXPECT_FALSE(hex_decode("abcdef", raw, 2));
  EXPECT_TRUE(hex_decode("", raw, 0));
}

TEST(Hex, AnyCaseAcceptsUppercaseAndMixed) {
  uint8_t b[3];
  ASSERT_TRUE(from_hex_any_case("ABcdEf", b, 3));
  EXPECT_EQ(b[0], 0xab);
  EXPECT_EQ(b[1], 0xcd);
  EXPECT_EQ(b[2], 0xef);
  EXPECT_FALSE(from_hex_any_case("ABcdEg", b, 3));
  EXPECT_FALSE(from_hex_any_case("ABcd", b, 3));
}

TEST(Hex, Hex64TakesEitherCaseAndNothingElse) {
  const std::string lower(64, 'a');
  EXPECT_TRUE(is_hex64(lower));
  EXPECT_TRUE(is_hex64(std::string(32, 'F') + std::string(32, '0')));
  EXPECT_FALSE(is_hex64(lower.substr(1)));
  EXPECT_FALSE(is_hex64(lower + "a"));
  EXPECT_FALSE(is_hex64(std::string(63, 'a') + "g"));
  EXPECT_FALSE(is_hex64(std::string(63, 'a') + "G"));
  EXPECT_FALSE(is_hex64(std::string(63, 'a') + "\x11"));  // a control byte is no digit in any case
}

// ---------------------------------------------------------------------------
// canonical escaping (docs/reference/protocol.md §2.2)

TEST(CanonicalEscaping, EveryControlCharacter) {
  // serde_json: the five short escapes, \u00XX with lowercase hex for the rest.
  const std::map<int, std::string> shorts = {
      {0x08, "\\b"}, {0x09, "\\t"}, {0x0a, "\\n"}, {0x0c, "\\f"}, {0x0d, "\\r"}};
  for (int c = 0; c < 0x20; ++c) {
    std::string expected;
    if (auto it = shorts.find(c); it != shorts.end()) {
      expected = it->second;
    } else {
      static const char kHex[] = "0123456789abcdef";
      expected = std::string("\\u00") + kHex[c >> 4] + kHex[c & 0xf];
    }
    EXPECT_EQ(json_string(std::string(1, char(c))), "\"" + expected + "\"") << "char " << c;
  }
}

TEST(CanonicalEscaping, UnitSeparatorUsesLowercaseHex) {
  EXPECT_EQ(json_string("\x1f"), "\"\\u001f\"");
  EXPECT_EQ(json_string("\x1b"), "\"\\u001b\"");
  EXPECT_EQ(json_string(std::string(1, '\0')), "\"\\u0000\"");
}

TEST(CanonicalEscaping, QuoteAndBackslash) {
  EXPECT_EQ(json_string("\""), R"("\"")");
  EXPECT_EQ(json_string("\\"), R"("\\")");
  EXPECT_EQ(json_string(R"(a"b\c)"), R"("a\"b\\c")");
}

TEST(CanonicalEscaping, SlashDeleteAndNonAsciiStayRaw) {
  EXPECT_EQ(json_string("/"), "\"/\"");
  EXPECT_EQ(json_string("</script>"), "\"</script>\"");
  EXPECT_EQ(json_string("\x7f"), "\"\x7f\"");
  EXPECT_EQ(json_string("é"), "\"é\"");
  EXPECT_EQ(json_string("😀"), "\"😀\"");
  EXPECT_EQ(json_string("\u2028\u2029"), "\"\u2028\u2029\"");  // JS line separators: not escaped
  // Invalid UTF-8 bytes are copied, not replaced or escaped.
  EXPECT_EQ(json_string("\xff\xfe"), "\"\xff\xfe\"");
}

TEST(CanonicalEscaping, EmptyAndMixedStrings) {
  EXPECT_EQ(json_string(""), "\"\"");
  EXPECT_EQ(json_string("plain text 123"), "\"plain text 123\"");
  EXPECT_EQ(json_string("a\nb\"c\x01" "d/é"), "\"a\\nb\\\"c\\u0001d/é\"");
  // Escapes at both ends of the string (the run bookkeeping).
  EXPECT_EQ(json_string("\nx\n"), "\"\\nx\\n\"");
}

TEST(CanonicalEscaping, AppendsWithoutClearing) {
  std::string out = "prefix:";
  append_json_string(out, "v");
  EXPECT_EQ(out, "prefix:\"v\"");
}

TEST(CanonicalTags, CompactNestedArrays) {
  std::string out;
  append_json_tags(out, {});
  EXPECT_EQ(out, "[]");
  out.clear();
  append_json_tags(out, {{"e", "abc", ""}, {"t"}, {"x", "a\"b"}});
  EXPECT_EQ(out, R"([["e","abc",""],["t"],["x","a\"b"]])");
}

// ---------------------------------------------------------------------------
// canonical serialization and id

TEST(CanonicalId, HandWrittenVector) {
  Event e;
  e.pubkey = hex_bytes<32>("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798");
  e.created_at = 1;
  e.kind = 30023;
  e.tags = {{"d", "slug"}, {"title", "A/B"}};
  e.content = "line1\nline2 \"q\" \\ ✓";
  const std::string expected =
      R"([0,"79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798",1,30023,)"
      R"([["d","slug"],["title","A/B"]],"line1\nline2 \"q\" \\ ✓"])";
  std::string out = "stale contents are cleared";
  canonical_serialization(e, out);
  EXPECT_EQ(out, expected);

  Id expected_id;
  sha256(expected.data(), expected.size(), expected_id.data());
  EXPECT_EQ(compute_id(e), expected_id);
  // SHA-256 of the literal above, computed independently (Python hashlib).
  EXPECT_EQ(to_hex(compute_id(e)), "c171c36622134bc6634192890bb211a3619d62c285f63a006ae1ea75a8bec74f");
}

TEST(CanonicalId, Sha256KnownVectors) {
  uint8_t out[32];
  sha256("abc", 3, out);
  EXPECT_EQ(to_hex(out, 32), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  sha256("", 0, out);
  EXPECT_EQ(to_hex(out, 32), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(CanonicalId, LargeCreatedAtAndKindAreWrittenAsPlainIntegers) {
  Event e;
  e.created_at = 18446744073709551615ull;
  e.kind = 65535;
  std::string out;
  canonical_serialization(e, out);
  EXPECT_EQ(out, "[0,\"" + std::string(64, '0') + "\",18446744073709551615,65535,[],\"\"]");
}

// A complete event signed by nostr-tools (secret key 3), with every escape
// class in its tags and content, including a raw U+007F.
const std::string kNostrToolsEvent =
    R"({"kind":1,"created_at":1700000000,"tags":[["e","5c83da77af1dec6d7289834998ad7aafbd9e2191396d75ec3cc27f5a77226f36","wss://relay.example.com/"],["t","nostr"],["x","q\"b\\s/\u0000"]],"content":"hi \"there\" \\ /slash\n\t\r\b\f\u0001\u001f)"
    "\x7f"
    R"( é 😀","pubkey":"f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9","id":"498394a0f7637a63964eacee20049af7354f7040d3cb44cee996ccfb2def923c","sig":"39d530ae2e9251a2b9b7298a1f4bb2de9cdfd28299ee97643923018b686de9bd68a7b5d0c0d186dfe64228d6595611eac2406485cc7aee03eb65cccd9e2ef323"})";

const std::string kNostrToolsCanonical =
    R"([0,"f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9",1700000000,1,[["e","5c83da77af1dec6d7289834998ad7aafbd9e2191396d75ec3cc27f5a77226f36","wss://relay.example.com/"],["t","nostr"],["x","q\"b\\s/\u0000"]],"hi \"there\" \\ /slash\n\t\r\b\f\u0001\u001f)"
    "\x7f"
    R"( é 😀"])";

TEST(CanonicalId, MatchesNostrToolsVector) {
  auto parsed = parse_event_json(kNostrToolsEvent);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  const Event& e = *parsed;
  EXPECT_EQ(e.kind, 1);
  EXPECT_EQ(e.created_at, 1700000000u);
  ASSERT_EQ(e.tags.size(), 3u);
  EXPECT_EQ(e.tags[2][1], std::string("q\"b\\s/\0", 7));
  EXPECT_EQ(e.content, "hi \"there\" \\ /slash\n\t\r\b\f\x01\x1f\x7f é 😀");

  std::string canonical;
  canonical_serialization(e, canonical);
  EXPECT_EQ(canonical, kNostrToolsCanonical);
  EXPECT_EQ(compute_id(e), e.id);
  EXPECT_EQ(e.id_hex(), "498394a0f7637a63964eacee20049af7354f7040d3cb44cee996ccfb2def923c");
  std::string reason;
  EXPECT_EQ(check_event(e, &reason), EventCheck::kOk) << reason;
}

// ---------------------------------------------------------------------------
// signatures

TEST(Signature, Bip340VerifyVectors) {
  // BIP-340 test vectors 0 and 1 (valid).
  EXPECT_TRUE(verify_signature(
      hex_bytes<32>("0000000000000000000000000000000000000000000000000000000000000000"),
      hex_bytes<32>("F9308A019258C31049344F85F89D5229B531C845836F99B08601F113BCE036F9"),
      hex_bytes<64>("E907831F80848D1069A5371B402410364BDF1C5F8307B0084C55F1CE2DCA8215"
                    "25F66A4A85EA8B71E482A74F382D2CE5EBEEE8FDB2172F477DF4900D310536C0")));
  EXPECT_TRUE(verify_signature(
      hex_bytes<32>("243F6A8885A308D313198A2E03707344A4093822299F31D0082EFA98EC4E6C89"),
      hex_bytes<32>("DFF1D77F2A671C5F36183726DB2341BE58FEAE1DA2DECED843240F7B502BA659"),
      hex_bytes<64>("6896BD60EEAE296DB48A229FF71DFE071BDE413E6D43F917DC8DCF8C78DE3341"
                    "8906D11AC976ABCCB20B091292BFF4EA897EFCB639EA871CFA95F6DE339E4B0A")));
  // Vector 5: public key not on the curve.
  EXPECT_FALSE(verify_signature(
      hex_bytes<32>("243F6A8885A308D313198A2E03707344A4093822299F31D0082EFA98EC4E6C89"),
      hex_bytes<32>("EEFDEA4CDB677750A420FEE807EACF21EB9898AE79B9768766E4FAA04A2D4A34"),
      hex_bytes<64>("6896BD60EEAE296DB48A229FF71DFE071BDE413E6D43F917DC8DCF8C78DE3341"
                    "8906D11AC976ABCCB20B091292BFF4EA897EFCB639EA871CFA95F6DE339E4B0A")));
}

TEST(Signature, KeypairFromKnownSecrets) {
  auto one = keypair_from_secret(secret_from_int(1));
  ASSERT_TRUE(one);
  EXPECT_EQ(to_hex(one->pubkey), "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798");
  auto three = keypair_from_secret(secret_from_int(3));
  ASSERT_TRUE(three);
  EXPECT_EQ(to_hex(three->pubkey), "f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9");
  EXPECT_FALSE(keypair_from_secret(secret_from_int(0)));
  // The group order n is not a valid secret.
  EXPECT_FALSE(keypair_from_secret(
      hex_bytes<32>("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141")));
}

TEST(Signature, ValidPubkeyIsACurvePoint) {
  EXPECT_TRUE(is_valid_pubkey(hex_bytes<32>("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")));
  Pubkey x1{};
  x1[31] = 1;  // 1^3 + 7 is a square mod p
  EXPECT_TRUE(is_valid_pubkey(x1));
  Pubkey x5{};
  x5[31] = 5;  // 5^3 + 7 is not a square mod p
  EXPECT_FALSE(is_valid_pubkey(x5));
  EXPECT_FALSE(is_valid_pubkey(hex_bytes<32>("EEFDEA4CDB677750A420FEE807EACF21EB9898AE79B9768766E4FAA04A2D4A34")));
  // x >= p.
  EXPECT_FALSE(is_valid_pubkey(hex_bytes<32>("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC30")));
  // Asking twice (the cache) gives the same answers.
  EXPECT_FALSE(is_valid_pubkey(x5));
  EXPECT_TRUE(is_valid_pubkey(x1));
}

TEST(Signature, GeneratedKeypairsAreValidAndDistinct) {
  Keypair a = generate_keypair();
  Keypair b = generate_keypair();
  EXPECT_NE(a.secret, b.secret);
  EXPECT_TRUE(is_valid_pubkey(a.pubkey));
  auto again = keypair_from_secret(a.secret);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->pubkey, a.pubkey);
}

const std::vector<Tag> kMessageTags = {{"h", "0b9a2d3c-2a0c-4a4e-9b7e-1f2d3c4b5a69"}, {"p", std::string(64, 'a')}};
const std::string kMessageContent = "hello \"team\"\n/é";

Event team_message(const Keypair& key) { return signed_event(key, 9, 1700000123, kMessageTags, kMessageContent); }

TEST(Signature, SignThenVerifyRoundTrip) {
  Keypair key = *keypair_from_secret(secret_from_int(7));
  Event e = team_message(key);
  EXPECT_EQ(e.pubkey, key.pubkey);
  EXPECT_EQ(e.id, compute_id(e));
  EXPECT_TRUE(verify_signature(e.id, e.pubkey, e.sig));
  std::string reason;
  EXPECT_EQ(check_event(e, &reason), EventCheck::kOk) << reason;

  // The relay-written JSON parses back to the same event and is kept as raw.
  auto back = parse_event_json(e.raw);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->id, e.id);
  EXPECT_EQ(back->pubkey, e.pubkey);
  EXPECT_EQ(back->sig, e.sig);
  EXPECT_EQ(back->created_at, e.created_at);
  EXPECT_EQ(back->kind, e.kind);
  EXPECT_EQ(back->tags, e.tags);
  EXPECT_EQ(back->content, e.content);
  EXPECT_EQ(back->raw, e.raw);
  EXPECT_EQ(check_event(*back, &reason), EventCheck::kOk) << reason;
}

// signed_event keeps the fields as given and signs the same bytes as sign_event
// over an event filled field by field: only the signature's random aux differs.
TEST(Signature, SignedEventIsTheFieldsAsGivenSigned) {
  Keypair key = *keypair_from_secret(secret_from_int(7));
  Event e = signed_event(key, 9, 1700000123, kMessageTags, kMessageContent);
  EXPECT_EQ(e.kind, 9);
  EXPECT_EQ(e.created_at, 1700000123u);
  EXPECT_EQ(e.tags, kMessageTags);
  EXPECT_EQ(e.content, kMessageContent);
  EXPECT_EQ(e.pubkey, key.pubkey);
  EXPECT_EQ(e.id, compute_id(e));
  EXPECT_EQ(e.raw, serialize_event(e));
  EXPECT_TRUE(verify_signature(e.id, e.pubkey, e.sig));

  Event by_hand;
  by_hand.kind = 9;
  by_hand.created_at = 1700000123;
  by_hand.tags = kMessageTags;
  by_hand.content = kMessageContent;
  sign_event(key, &by_hand);
  EXPECT_EQ(e.id, by_hand.id);
  by_hand.sig = e.sig;
  EXPECT_EQ(e.raw, serialize_event(by_hand));

  // No tags and no content unless given.
  Event bare = signed_event(key, 20001, 5);
  EXPECT_TRUE(bare.tags.empty());
  EXPECT_TRUE(bare.content.empty());
  EXPECT_EQ(bare.raw, R"({"id":")" + bare.id_hex() + R"(","pubkey":")" + bare.pubkey_hex() +
                          R"(","created_at":5,"kind":20001,"tags":[],"content":"","sig":")" + to_hex(bare.sig) + R"("})");
  std::string reason;
  EXPECT_EQ(check_event(bare, &reason), EventCheck::kOk) << reason;
}

TEST(Signature, EveryFlippedSignatureBitFails) {
  Keypair key = *keypair_from_secret(secret_from_int(7));
  Event e = team_message(key);
  for (size_t bit = 0; bit < 512; ++bit) {
    Sig bad = e.sig;
    bad[bit / 8] ^= uint8_t(1u << (bit % 8));
    EXPECT_FALSE(verify_signature(e.id, e.pubkey, bad)) << "bit " << bit;
  }
}

TEST(Signature, WrongIdOrPubkeyFails) {
  Keypair key = *keypair_from_secret(secret_from_int(7));
  Keypair other = *keypair_from_secret(secret_from_int(8));
  Event e = team_message(key);
  Id id = e.id;
  id[0] ^= 1;
  EXPECT_FALSE(verify_signature(id, e.pubkey, e.sig));
  EXPECT_FALSE(verify_signature(e.id, other.pubkey, e.sig));
  Pubkey off_curve{};
  off_curve[31] = 5;
  EXPECT_FALSE(verify_signature(e.id, off_curve, e.sig));
}

TEST(Signature, CheckEventReportsBadIdBeforeSignature) {
  Keypair key = *keypair_from_secret(secret_from_int(7));
  Event e = team_message(key);
  Id computed = e.id;
  e.content += "!";  // changes the computed id; the claimed id and sig stay
  std::string reason;
  EXPECT_EQ(check_event(e, &reason), EventCheck::kBadId);
  EXPECT_EQ(reason, "invalid: invalid event id: computed " + to_hex(compute_id(e)) + ", got " + to_hex(computed));
  // Both wrong: the id is reported.
  e.sig[0] ^= 1;
  EXPECT_EQ(check_event(e, &reason), EventCheck::kBadId);
}

TEST(Signature, CheckEventReportsBadSignature) {
  Keypair key = *keypair_from_secret(secret_from_int(7));
  Event e = team_message(key);
  e.sig[63] ^= 0x80;
  std::string reason;
  EXPECT_EQ(check_event(e, &reason), EventCheck::kBadSignature);
  EXPECT_EQ(reason, "invalid: invalid schnorr signature");
}

TEST(Signature, SerializeEventWritesNip01FieldOrder) {
  Event e;
  e.id[0] = 0x01;
  e.pubkey[0] = 0x02;
  e.sig[0] = 0x03;
  e.created_at = 5;
  e.kind = 7;
  e.tags = {{"e", "x"}};
  e.content = "+";
  std::string z62(62, '0');
  EXPECT_EQ(serialize_event(e), "{\"id\":\"01" + z62 + "\",\"pubkey\":\"02" + z62 +
                                    "\",\"created_at\":5,\"kind\":7,\"tags\":[[\"e\",\"x\"]],\"content\":\"+\","
                                    "\"sig\":\"03" + std::string(126, '0') + "\"}");
}

// ---------------------------------------------------------------------------
// Event helpers

TEST(EventModel, FirstTagValueSkipsTagsWithoutValue) {
  Event e;
  e.tags = {{"d"}, {"x", "1"}, {"d", "first"}, {"d", "second"}};
  EXPECT_EQ(e.first_tag_value("d"), "first");
  EXPECT_EQ(e.first_tag_value("x"), "1");
  EXPECT_EQ(e.first_tag_value("missing"), "");
}

TEST(EventModel, FieldsKeepSingleLetterTagsWithValuesInOrder) {
  Event e;
  e.kind = 9;
  e.created_at = 42;
  e.tags = {{"e", "a"}, {"imeta", "url x"}, {"p"}, {"t", "b", "extra"}, {"e", "c"}, {"", "empty name"}};
  EventFields f;
  f.tags.push_back({'z', "stale"});
  f.assign(e, "chan");
  EXPECT_EQ(f.id, e.id.data());
  EXPECT_EQ(f.pubkey, e.pubkey.data());
  EXPECT_EQ(f.created_at, 42u);
  EXPECT_EQ(f.kind, 9);
  EXPECT_EQ(f.channel, "chan");
  ASSERT_EQ(f.tags.size(), 3u);
  EXPECT_EQ(f.tags[0].name, 'e');
  EXPECT_EQ(f.tags[0].value, "a");
  EXPECT_EQ(f.tags[1].name, 't');
  EXPECT_EQ(f.tags[1].value, "b");
  EXPECT_EQ(f.tags[2].name, 'e');
  EXPECT_EQ(f.tags[2].value, "c");
}

// ---------------------------------------------------------------------------
// parse_event strictness (docs/reference/protocol.md §2.1)

const std::string kId = "498394a0f7637a63964eacee20049af7354f7040d3cb44cee996ccfb2def923c";
const std::string kPubkey = "f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9";
const std::string kSig =
    "39d530ae2e9251a2b9b7298a1f4bb2de9cdfd28299ee97643923018b686de9bd68a7b5d0c0d186dfe64228d6595611eac2406485cc7aee03eb65cccd9e2ef323";

// An event object with each field's JSON text overridable; nullopt drops it.
std::string event_json(std::map<std::string, std::optional<std::string>> overrides = {}) {
  std::vector<std::pair<std::string, std::string>> fields = {
      {"id", "\"" + kId + "\""},
      {"pubkey", "\"" + kPubkey + "\""},
      {"created_at", "1700000000"},
      {"kind", "1"},
      {"tags", "[[\"t\",\"nostr\"]]"},
      {"content", "\"hi\""},
      {"sig", "\"" + kSig + "\""},
  };
  std::string out = "{";
  bool first = true;
  auto add = [&](const std::string& k, const std::string& v) {
    if (!first) out += ",";
    first = false;
    out += "\"" + k + "\":" + v;
  };
  for (auto& [k, v] : fields) {
    auto it = overrides.find(k);
    if (it == overrides.end()) {
      add(k, v);
    } else if (it->second) {
      add(k, *it->second);
    }
  }
  for (auto& [k, v] : overrides) {
    bool known = false;
    for (auto& f : fields) known |= f.first == k;
    if (!known && v) add(k, *v);
  }
  return out + "}";
}

std::string parse_error(const std::string& json) {
  auto r = parse_event_json(json);
  return r.ok() ? std::string("<parsed>") : r.error();
}

TEST(EventParse, AcceptsWellFormedEvent) {
  auto r = parse_event_json(event_json());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->id_hex(), kId);
  EXPECT_EQ(r->pubkey_hex(), kPubkey);
  EXPECT_EQ(to_hex(r->sig), kSig);
  EXPECT_EQ(r->created_at, 1700000000u);
  EXPECT_EQ(r->kind, 1);
  ASSERT_EQ(r->tags.size(), 1u);
  EXPECT_EQ(r->tags[0], (Tag{"t", "nostr"}));
  EXPECT_EQ(r->content, "hi");
}

TEST(EventParse, MissingFieldsAreNamed) {
  for (const char* field : {"id", "pubkey", "created_at", "kind", "tags", "content", "sig"}) {
    EXPECT_EQ(parse_error(event_json({{field, std::nullopt}})), std::string("missing field `") + field + "`")
        << field;
  }
}

TEST(EventParse, NonObjectIsRefused) {
  EXPECT_EQ(parse_error("[]"), "event must be a JSON object");
  EXPECT_EQ(parse_error("\"event\""), "event must be a JSON object");
  EXPECT_EQ(parse_error("null"), "event must be a JSON object");
}

TEST(EventParse, NotJsonIsAParseError) {
  EXPECT_EQ(parse_error("{").rfind("JSON parse error: ", 0), 0u);
  EXPECT_EQ(parse_error("").rfind("JSON parse error: ", 0), 0u);
}

TEST(EventParse, HexFieldsMustBeStrings) {
  EXPECT_EQ(parse_error(event_json({{"id", "1"}})), "id must be a string");
  EXPECT_EQ(parse_error(event_json({{"pubkey", "null"}})), "pubkey must be a string");
  EXPECT_EQ(parse_error(event_json({{"sig", "[]"}})), "sig must be a string");
}

TEST(EventParse, HexFieldsMustBeExactLowercaseHex) {
  std::string upper_id = kId;
  for (char& c : upper_id) c = char(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(parse_error(event_json({{"id", "\"" + upper_id + "\""}})), "id must be 64 lowercase hex characters");
  EXPECT_EQ(parse_error(event_json({{"id", "\"" + kId.substr(1) + "\""}})), "id must be 64 lowercase hex characters");
  EXPECT_EQ(parse_error(event_json({{"id", "\"" + kId + "0\""}})), "id must be 64 lowercase hex characters");
  EXPECT_EQ(parse_error(event_json({{"id", "\"" + kId.substr(0, 63) + "g\""}})),
            "id must be 64 lowercase hex characters");
  std::string upper_pk = kPubkey;
  upper_pk[0] = 'F';
  EXPECT_EQ(parse_error(event_json({{"pubkey", "\"" + upper_pk + "\""}})),
            "pubkey must be 64 lowercase hex characters");
  EXPECT_EQ(parse_error(event_json({{"sig", "\"" + kSig.substr(0, 64) + "\""}})),
            "sig must be 128 lowercase hex characters");
  std::string upper_sig = kSig;
  upper_sig[127] = 'A';
  EXPECT_EQ(parse_error(event_json({{"sig", "\"" + upper_sig + "\""}})), "sig must be 128 lowercase hex characters");
}

TEST(EventParse, PubkeyMustBeACurvePoint) {
  // docs/reference/protocol.md §2.1: pubkey must be 64 hex chars AND a valid BIP-340 x-only
  // point; failing that is a parse failure, not a signature failure.
  std::string off_curve = std::string(63, '0') + "5";
  EXPECT_FALSE(parse_event_json(event_json({{"pubkey", "\"" + off_curve + "\""}})).ok());
  std::string above_p = "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc30";
  EXPECT_FALSE(parse_event_json(event_json({{"pubkey", "\"" + above_p + "\""}})).ok());
}

TEST(EventParse, CreatedAtMustBeANonNegativeInteger) {
  const std::string err = "created_at must be a non-negative integer";
  EXPECT_EQ(parse_error(event_json({{"created_at", "1.5"}})), err);
  EXPECT_EQ(parse_error(event_json({{"created_at", "1700000000.0"}})), err);
  EXPECT_EQ(parse_error(event_json({{"created_at", "1e9"}})), err);
  EXPECT_EQ(parse_error(event_json({{"created_at", "-1"}})), err);
  EXPECT_EQ(parse_error(event_json({{"created_at", "\"1700000000\""}})), err);
  EXPECT_EQ(parse_error(event_json({{"created_at", "null"}})), err);
  EXPECT_EQ(parse_error(event_json({{"created_at", "true"}})), err);
  EXPECT_NE(parse_error(event_json({{"created_at", "18446744073709551616"}})), "<parsed>");  // > u64
}

TEST(EventParse, CreatedAtAcceptsTheWholeU64Range) {
  auto zero = parse_event_json(event_json({{"created_at", "0"}}));
  ASSERT_TRUE(zero.ok()) << zero.error();
  EXPECT_EQ(zero->created_at, 0u);
  auto big = parse_event_json(event_json({{"created_at", "9223372036854775808"}}));  // > i64
  ASSERT_TRUE(big.ok()) << big.error();
  EXPECT_EQ(big->created_at, 9223372036854775808ull);
  auto max = parse_event_json(event_json({{"created_at", "18446744073709551615"}}));
  ASSERT_TRUE(max.ok()) << max.error();
  EXPECT_EQ(max->created_at, 18446744073709551615ull);
}

TEST(EventParse, KindMustBeAnIntegerInSixteenBits) {
  const std::string err = "kind must be an integer between 0 and 65535";
  EXPECT_EQ(parse_error(event_json({{"kind", "-1"}})), err);
  EXPECT_EQ(parse_error(event_json({{"kind", "65536"}})), err);
  EXPECT_EQ(parse_error(event_json({{"kind", "4294967297"}})), err);
  EXPECT_EQ(parse_error(event_json({{"kind", "18446744073709551615"}})), err);
  EXPECT_EQ(parse_error(event_json({{"kind", "1.0"}})), err);
  EXPECT_EQ(parse_error(event_json({{"kind", "1e2"}})), err);
  EXPECT_EQ(parse_error(event_json({{"kind", "\"1\""}})), err);
  EXPECT_EQ(parse_error(event_json({{"kind", "null"}})), err);
  auto zero = parse_event_json(event_json({{"kind", "0"}}));
  ASSERT_TRUE(zero.ok()) << zero.error();
  EXPECT_EQ(zero->kind, 0);
  auto max = parse_event_json(event_json({{"kind", "65535"}}));
  ASSERT_TRUE(max.ok()) << max.error();
  EXPECT_EQ(max->kind, 65535);
}

TEST(EventParse, TagsMustBeArraysOfStrings) {
  const std::string shape = "tags must be an array of arrays of strings";
  EXPECT_EQ(parse_error(event_json({{"tags", "{}"}})), shape);
  EXPECT_EQ(parse_error(event_json({{"tags", "null"}})), shape);
  EXPECT_EQ(parse_error(event_json({{"tags", "\"t\""}})), shape);
  EXPECT_EQ(parse_error(event_json({{"tags", "[\"t\",\"x\"]"}})), shape);
  EXPECT_EQ(parse_error(event_json({{"tags", "[[\"t\",\"x\"],{}]"}})), shape);
  EXPECT_EQ(parse_error(event_json({{"tags", "[[\"t\",1]]"}})), "tag elements must be strings");
  EXPECT_EQ(parse_error(event_json({{"tags", "[[\"t\",null]]"}})), "tag elements must be strings");
  EXPECT_EQ(parse_error(event_json({{"tags", "[[1]]"}})), "tag elements must be strings");
  EXPECT_EQ(parse_error(event_json({{"tags", "[[\"t\",[\"x\"]]]"}})), "tag elements must be strings");
}

TEST(EventParse, EmptyTagIsRefused) {
  EXPECT_EQ(parse_error(event_json({{"tags", "[[]]"}})), "a tag must have at least one element");
  EXPECT_EQ(parse_error(event_json({{"tags", "[[\"t\",\"x\"],[]]"}})), "a tag must have at least one element");
}

TEST(EventParse, EmptyTagListAndFreeTagNamesAreAccepted) {
  auto none = parse_event_json(event_json({{"tags", "[]"}}));
  ASSERT_TRUE(none.ok()) << none.error();
  EXPECT_TRUE(none->tags.empty());
  auto many = parse_event_json(event_json({{"tags", R"([["imeta","url https://x"],["buzz:workflow","true"],["-"],[""]])"}}));
  ASSERT_TRUE(many.ok()) << many.error();
  ASSERT_EQ(many->tags.size(), 4u);
  EXPECT_EQ(many->tags[2], Tag{"-"});
  EXPECT_EQ(many->tags[3], Tag{""});
}

TEST(EventParse, ContentMustBeAString) {
  EXPECT_EQ(parse_error(event_json({{"content", "1"}})), "content must be a string");
  EXPECT_EQ(parse_error(event_json({{"content", "null"}})), "content must be a string");
  EXPECT_EQ(parse_error(event_json({{"content", "{}"}})), "content must be a string");
  auto empty = parse_event_json(event_json({{"content", "\"\""}}));
  ASSERT_TRUE(empty.ok()) << empty.error();
  EXPECT_EQ(empty->content, "");
}

TEST(EventParse, ContentEscapesAreDecoded) {
  auto r = parse_event_json(event_json({{"content", R"("a\u00e9\n\/\"\ud83d\ude00")"}}));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->content, "aé\n/\"😀");
}

TEST(EventParse, UnknownExtraFieldsAreIgnored) {
  auto r = parse_event_json(
      event_json({{"extra", "{\"nested\":[1,2,{\"id\":3}]}"}, {"seen_on", "[\"wss://a\"]"}, {"ID", "5"}}));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->id_hex(), kId);
}

TEST(EventParse, FieldOrderDoesNotMatter) {
  std::string json = "{\"sig\":\"" + kSig + "\",\"content\":\"hi\",\"tags\":[],\"kind\":1,\"created_at\":2,\"pubkey\":\"" +
                     kPubkey + "\",\"id\":\"" + kId + "\"}";
  auto r = parse_event_json(json);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->created_at, 2u);
}

TEST(EventParse, RawTextIsKeptVerbatim) {
  // Whitespace, key order, escapes and unknown fields all survive in raw.
  std::string json = " {\n  \"content\" : \"a\\u0041\\/\",\n\t\"id\":\"" + kId + "\", \"pubkey\":\"" + kPubkey +
                     "\",\"created_at\":1,\"kind\":1,\"tags\":[ ],\"sig\":\"" + kSig + "\",\"x\":1.50 } ";
  auto r = parse_event_json(json);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->raw, json);
  EXPECT_EQ(r->content, "aA/");
}

TEST(EventParse, ParseEventTakesRawFromCaller) {
  simdjson::dom::parser parser;
  std::string json = event_json();
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(json).get(root), simdjson::SUCCESS);
  auto r = parse_event(root, "the caller's slice");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->raw, "the caller's slice");
}

}  // namespace
}  // namespace buzz::engine
