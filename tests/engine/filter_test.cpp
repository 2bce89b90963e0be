// Unit tests for engine/filter: NIP-01 filter parsing (every field, its error
// text, ignored keys, sorting/deduplication) and Filter::matches on
// EventFields (each field alone, AND across fields, empty lists, inclusive
// since/until, tag filters on the second element, the #h channel fallback of
// docs/reference/protocol.md §9.2). matches_nothing/tag/has_kind helpers are covered too.
// The store's indexed query path is checked against this matcher in
// event_store_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/event.h"
#include "engine/filter.h"
#include "engine/signature.h"

namespace buzz::engine {
namespace {

Keypair filter_key(uint8_t n) {
  SecretKey s{};
  s[31] = n;
  return *keypair_from_secret(s);
}

Filter parse(const std::string& json) {
  auto r = parse_filter_json(json);
  EXPECT_TRUE(r.ok()) << json << ": " << r.error();
  return r.ok() ? *r : Filter{};
}

std::string filter_parse_error(const std::string& json) {
  auto r = parse_filter_json(json);
  return r.ok() ? std::string("<parsed>") : r.error();
}

// An event with the given fields (id and pubkey set directly, not signed).
struct TestEvent {
  Event event;
  std::string channel;
  EventFields fields() const {
    EventFields f;
    f.assign(event, channel);
    return f;
  }
};

TestEvent make(uint8_t id_byte, const Pubkey& author, uint16_t kind, uint64_t created_at,
               std::vector<Tag> tags = {}, std::string channel = {}) {
  TestEvent t;
  t.event.id[0] = id_byte;
  t.event.id[31] = 0x5a;
  t.event.pubkey = author;
  t.event.kind = kind;
  t.event.created_at = created_at;
  t.event.tags = std::move(tags);
  t.channel = std::move(channel);
  return t;
}

bool matches(const std::string& filter_json, const TestEvent& e) { return parse(filter_json).matches(e.fields()); }

class FilterMatch : public ::testing::Test {
 protected:
  Keypair alice = filter_key(1);
  Keypair bob = filter_key(2);
  std::string alice_hex = to_hex(alice.pubkey);
  std::string bob_hex = to_hex(bob.pubkey);
  TestEvent note = make(0x10, alice.pubkey, 1, 1000, {{"t", "nostr"}, {"p", "abc"}, {"e", "x", "wss://r", "reply"}});
};

// ---------------------------------------------------------------------------
// matching

TEST_F(FilterMatch, EmptyFilterMatchesEverything) { EXPECT_TRUE(matches("{}", note)); }

TEST_F(FilterMatch, Ids) {
  std::string id = note.event.id_hex();
  std::string other = std::string(63, '0') + "1";
  EXPECT_TRUE(matches(R"({"ids":[")" + id + R"("]})", note));
  EXPECT_TRUE(matches(R"({"ids":[")" + other + R"(",")" + id + R"("]})", note));
  EXPECT_FALSE(matches(R"({"ids":[")" + other + R"("]})", note));
  EXPECT_FALSE(matches(R"({"ids":[]})", note));
}

TEST_F(FilterMatch, Authors) {
  EXPECT_TRUE(matches(R"({"authors":[")" + alice_hex + R"("]})", note));
  EXPECT_TRUE(matches(R"({"authors":[")" + bob_hex + R"(",")" + alice_hex + R"("]})", note));
  EXPECT_FALSE(matches(R"({"authors":[")" + bob_hex + R"("]})", note));
  EXPECT_FALSE(matches(R"({"authors":[]})", note));
}

TEST_F(FilterMatch, Kinds) {
  EXPECT_TRUE(matches(R"({"kinds":[1]})", note));
  EXPECT_TRUE(matches(R"({"kinds":[7,1,9]})", note));
  EXPECT_FALSE(matches(R"({"kinds":[0,2,65535]})", note));
}

TEST_F(FilterMatch, EmptyKindsMatchesNothing) {
  Filter f = parse(R"({"kinds":[]})");
  EXPECT_FALSE(f.matches(note.fields()));
  EXPECT_TRUE(f.matches_nothing());
  for (uint16_t k : {0, 1, 5, 9, 30023, 65535}) {
    TestEvent e = make(1, alice.pubkey, k, 1);
    EXPECT_FALSE(f.matches(e.fields())) << k;
  }
}

TEST_F(FilterMatch, SinceAndUntilAreInclusive) {
  EXPECT_TRUE(matches(R"({"since":1000})", note));
  EXPECT_TRUE(matches(R"({"since":999})", note));
  EXPECT_FALSE(matches(R"({"since":1001})", note));
  EXPECT_TRUE(matches(R"({"until":1000})", note));
  EXPECT_TRUE(matches(R"({"until":1001})", note));
  EXPECT_FALSE(matches(R"({"until":999})", note));
  EXPECT_TRUE(matches(R"({"since":1000,"until":1000})", note));
  EXPECT_FALSE(matches(R"({"since":1001,"until":999})", note));
  EXPECT_TRUE(matches(R"({"since":0})", make(1, alice.pubkey, 1, 0)));
}

TEST_F(FilterMatch, TagMatchesOnSecondElement) {
  EXPECT_TRUE(matches(R"({"#t":["nostr"]})", note));
  EXPECT_TRUE(matches(R"({"#t":["zzz","nostr"]})", note));
  EXPECT_TRUE(matches(R"({"#e":["x"]})", note));
  // Only the second element counts: not the relay hint or marker.
  EXPECT_FALSE(matches(R"({"#e":["wss://r"]})", note));
  EXPECT_FALSE(matches(R"({"#e":["reply"]})", note));
  // The tag name is not a value.
  EXPECT_FALSE(matches(R"({"#t":["t"]})", note));
  EXPECT_FALSE(matches(R"({"#t":["other"]})", note));
  // Exact and case-sensitive.
  EXPECT_FALSE(matches(R"({"#t":["Nostr"]})", note));
  EXPECT_FALSE(matches(R"({"#t":["nost"]})", note));
  // Absent tag name.
  EXPECT_FALSE(matches(R"({"#q":["nostr"]})", note));
}

TEST_F(FilterMatch, TagNamesAreCaseSensitive) {
  TestEvent e = make(1, alice.pubkey, 1, 1, {{"P", "upper"}, {"p", "lower"}});
  EXPECT_TRUE(matches(R"({"#P":["upper"]})", e));
  EXPECT_FALSE(matches(R"({"#P":["lower"]})", e));
  EXPECT_TRUE(matches(R"({"#p":["lower"]})", e));
  EXPECT_FALSE(matches(R"({"#p":["upper"]})", e));
}

TEST_F(FilterMatch, AnyTagWithTheNameMayMatch) {
  TestEvent e = make(1, alice.pubkey, 1, 1, {{"p", "a"}, {"p", "b"}, {"p", "c"}});
  EXPECT_TRUE(matches(R"({"#p":["c"]})", e));
  EXPECT_TRUE(matches(R"({"#p":["b","zz"]})", e));
}

TEST_F(FilterMatch, SingleElementAndMultiLetterTagsNeverMatch) {
  TestEvent e = make(1, alice.pubkey, 1, 1, {{"t"}, {"tt", "x"}});
  EXPECT_FALSE(matches(R"({"#t":["t"]})", e));
  EXPECT_FALSE(matches(R"({"#t":[""]})", e));
  EXPECT_FALSE(matches(R"({"#t":["x"]})", e));
}

TEST_F(FilterMatch, EmptyTagValueMatchesEmptyString) {
  TestEvent e = make(1, alice.pubkey, 30023, 1, {{"d", ""}});
  EXPECT_TRUE(matches(R"({"#d":[""]})", e));
  EXPECT_FALSE(matches(R"({"#d":["x"]})", e));
}

TEST_F(FilterMatch, EmptyTagListMatchesNothing) {
  Filter f = parse(R"({"#t":[]})");
  EXPECT_FALSE(f.matches(note.fields()));
  EXPECT_TRUE(f.matches_nothing());
}

TEST_F(FilterMatch, SeveralTagFiltersAreAnded) {
  EXPECT_TRUE(matches(R"({"#t":["nostr"],"#p":["abc"]})", note));
  EXPECT_FALSE(matches(R"({"#t":["nostr"],"#p":["nope"]})", note));
}

TEST_F(FilterMatch, FieldsAreAnded) {
  std::string base = R"("authors":[")" + alice_hex + R"("],"kinds":[1],"since":1000,"until":1000,"#t":["nostr"])";
  EXPECT_TRUE(matches("{" + base + "}", note));
  EXPECT_FALSE(matches(R"({"authors":[")" + bob_hex + R"("],"kinds":[1]})", note));
  EXPECT_FALSE(matches(R"({"authors":[")" + alice_hex + R"("],"kinds":[2]})", note));
  EXPECT_FALSE(matches(R"({"kinds":[1],"#t":["other"]})", note));
  EXPECT_FALSE(matches(R"({"kinds":[1],"since":2000})", note));
}

TEST_F(FilterMatch, HashHFallsBackToChannelWithoutHTag) {
  // A reaction inherits its target's channel and carries no h tag.
  TestEvent reaction = make(1, alice.pubkey, 7, 1, {{"e", "target"}}, "chan-1");
  EXPECT_TRUE(matches(R"({"#h":["chan-1"]})", reaction));
  EXPECT_TRUE(matches(R"({"#h":["x","chan-1"]})", reaction));
  EXPECT_FALSE(matches(R"({"#h":["chan-2"]})", reaction));
}

// #h is the channel an event was admitted to, not any h tag it carries: a
// second h tag, or an h tag on an event stored globally, names no channel.
TEST_F(FilterMatch, HashHIsTheStoredChannelNotATag) {
  TestEvent e = make(1, alice.pubkey, 9, 1, {{"h", "chan-a"}, {"h", "chan-b"}}, "chan-a");
  EXPECT_TRUE(matches(R"({"#h":["chan-a"]})", e));
  EXPECT_FALSE(matches(R"({"#h":["chan-b"]})", e));
  TestEvent global = make(2, alice.pubkey, 1, 1, {{"h", "chan-a"}});
  EXPECT_FALSE(matches(R"({"#h":["chan-a"]})", global));
}

TEST_F(FilterMatch, HashHWithoutTagOrChannelNeverMatches) {
  TestEvent global = make(1, alice.pubkey, 1, 1);
  EXPECT_FALSE(matches(R"({"#h":[""]})", global));
  EXPECT_FALSE(matches(R"({"#h":["chan"]})", global));
}

TEST_F(FilterMatch, ChannelFallbackIsOnlyForH) {
  TestEvent e = make(1, alice.pubkey, 7, 1, {}, "chan-1");
  EXPECT_FALSE(matches(R"({"#g":["chan-1"]})", e));
  EXPECT_FALSE(matches(R"({"#H":["chan-1"]})", e));
}

// ---------------------------------------------------------------------------
// parsing

TEST(FilterParse, AllFieldsAreRead) {
  Keypair a = filter_key(1), b = filter_key(2);
  std::string id1(64, 'b'), id2(64, 'a');
  Filter f = parse(R"({"ids":[")" + id1 + R"(",")" + id2 + R"(",")" + id1 + R"("],"authors":[")" + to_hex(b.pubkey) +
                   R"(",")" + to_hex(a.pubkey) + R"("],"kinds":[9,1,9,0],"#t":["b","a","b"],"#e":["x"],)"
                   R"("since":10,"until":20,"limit":5,"search":"hello world"})");
  ASSERT_TRUE(f.ids);
  ASSERT_EQ(f.ids->size(), 2u);  // sorted, deduplicated
  EXPECT_EQ(to_hex((*f.ids)[0]), id2);
  EXPECT_EQ(to_hex((*f.ids)[1]), id1);
  ASSERT_TRUE(f.authors);
  ASSERT_EQ(f.authors->size(), 2u);
  EXPECT_LT((*f.authors)[0], (*f.authors)[1]);
  ASSERT_TRUE(f.kinds);
  EXPECT_EQ(*f.kinds, (std::vector<uint16_t>{0, 1, 9}));
  ASSERT_EQ(f.tags.size(), 2u);
  EXPECT_EQ(f.tags[0].name, 'e');  // sorted by name
  EXPECT_EQ(f.tags[1].name, 't');
  EXPECT_EQ(f.tags[1].values, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(f.since, 10u);
  EXPECT_EQ(f.until, 20u);
  EXPECT_EQ(f.limit, 5u);
  EXPECT_EQ(f.search, "hello world");
  ASSERT_NE(f.tag('t'), nullptr);
  EXPECT_EQ(f.tag('t')->values.size(), 2u);
  EXPECT_EQ(f.tag('p'), nullptr);
  EXPECT_TRUE(f.has_kind(9));
  EXPECT_FALSE(f.has_kind(7));
  EXPECT_FALSE(f.matches_nothing());
}

TEST(FilterParse, EmptyObjectHasNoConstraints) {
  Filter f = parse("{}");
  EXPECT_FALSE(f.ids);
  EXPECT_FALSE(f.authors);
  EXPECT_FALSE(f.kinds);
  EXPECT_TRUE(f.tags.empty());
  EXPECT_FALSE(f.since);
  EXPECT_FALSE(f.until);
  EXPECT_FALSE(f.limit);
  EXPECT_FALSE(f.search);
  EXPECT_TRUE(f.has_kind(12345));
  EXPECT_FALSE(f.matches_nothing());
}

TEST(FilterParse, NotAnObject) {
  EXPECT_EQ(filter_parse_error("[]"), "filter must be a JSON object");
  EXPECT_EQ(filter_parse_error("1"), "filter must be a JSON object");
  EXPECT_EQ(filter_parse_error("{").rfind("JSON parse error: ", 0), 0u);
}

TEST(FilterParse, IdsMustBeFullLowercaseHex) {
  const std::string err = "ids must hold 64-character lowercase hex values";
  EXPECT_EQ(filter_parse_error(R"({"ids":["abcd"]})"), err);  // prefixes are not accepted
  EXPECT_EQ(filter_parse_error(R"({"ids":[")" + std::string(64, 'A') + R"("]})"), err);
  EXPECT_EQ(filter_parse_error(R"({"ids":[")" + std::string(65, 'a') + R"("]})"), err);
  EXPECT_EQ(filter_parse_error(R"({"ids":[1]})"), err);
  EXPECT_EQ(filter_parse_error(R"({"ids":"abc"})"), "ids must be an array of strings");
  EXPECT_EQ(parse(R"({"ids":[]})").ids->size(), 0u);
}

TEST(FilterParse, AuthorsMustBeValidPoints) {
  std::string off_curve = std::string(63, '0') + "5";
  EXPECT_EQ(filter_parse_error(R"({"authors":[")" + off_curve + R"("]})"),
            "authors must hold valid public keys, got " + off_curve);
  std::string valid = to_hex(filter_key(1).pubkey);
  EXPECT_EQ(filter_parse_error(R"({"authors":[")" + valid + R"(",")" + off_curve + R"("]})"),
            "authors must hold valid public keys, got " + off_curve);
  EXPECT_EQ(filter_parse_error(R"({"authors":["abcd"]})"), "authors must hold 64-character lowercase hex values");
  std::string upper = valid;
  for (char& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(filter_parse_error(R"({"authors":[")" + upper + R"("]})"), "authors must hold 64-character lowercase hex values");
  EXPECT_EQ(filter_parse_error(R"({"authors":{}})"), "authors must be an array of strings");
}

TEST(FilterParse, KindsMustBeSixteenBitIntegers) {
  const std::string err = "kinds must hold integers between 0 and 65535";
  EXPECT_EQ(filter_parse_error(R"({"kinds":[-1]})"), err);
  EXPECT_EQ(filter_parse_error(R"({"kinds":[65536]})"), err);
  EXPECT_EQ(filter_parse_error(R"({"kinds":[1.5]})"), err);
  EXPECT_EQ(filter_parse_error(R"({"kinds":["1"]})"), err);
  EXPECT_EQ(filter_parse_error(R"({"kinds":1})"), "kinds must be an array of integers");
  EXPECT_EQ(*parse(R"({"kinds":[65535,0]})").kinds, (std::vector<uint16_t>{0, 65535}));
}

TEST(FilterParse, SinceUntilLimitMustBeNonNegativeIntegers) {
  for (const char* field : {"since", "until", "limit"}) {
    std::string err = std::string(field) + " must be a non-negative integer";
    EXPECT_EQ(filter_parse_error(std::string("{\"") + field + "\":-1}"), err);
    EXPECT_EQ(filter_parse_error(std::string("{\"") + field + "\":1.5}"), err);
    EXPECT_EQ(filter_parse_error(std::string("{\"") + field + "\":\"1\"}"), err);
    EXPECT_EQ(filter_parse_error(std::string("{\"") + field + "\":null}"), err);
  }
  EXPECT_EQ(parse(R"({"limit":0})").limit, 0u);
  EXPECT_EQ(parse(R"({"until":18446744073709551615})").until, 18446744073709551615ull);
}

TEST(FilterParse, SearchMustBeAString) {
  EXPECT_EQ(filter_parse_error(R"({"search":1})"), "search must be a string");
  EXPECT_EQ(parse(R"({"search":""})").search, "");
}

TEST(FilterParse, HashFollowedByNonLetterIsAnError) {
  EXPECT_EQ(filter_parse_error(R"({"#1":["x"]})"), "tag filter keys must be # followed by one letter, got #1");
  EXPECT_NE(filter_parse_error(R"({"#_":["x"]})"), "<parsed>");
  EXPECT_NE(filter_parse_error(R"({"##":["x"]})"), "<parsed>");
}

TEST(FilterParse, LongerHashKeysAndUnknownKeysAreIgnored) {
  Filter f = parse(R"({"#ab":["x"],"#":["y"],"foo":{"bar":1},"#e1":5,"kinds":[1]})");
  EXPECT_TRUE(f.tags.empty());
  ASSERT_TRUE(f.kinds);
  TestEvent e = make(1, filter_key(1).pubkey, 1, 1);
  EXPECT_TRUE(f.matches(e.fields()));
}

TEST(FilterParse, TagValuesMustBeStrings) {
  EXPECT_EQ(filter_parse_error(R"({"#t":"x"})"), "#t must be an array of strings");
  EXPECT_EQ(filter_parse_error(R"({"#t":[1]})"), "#t must be an array of strings");
  EXPECT_EQ(filter_parse_error(R"({"#T":[null]})"), "#T must be an array of strings");
}

TEST(FilterParse, BothLetterCasesAreSeparateTagFilters) {
  Filter f = parse(R"({"#p":["a"],"#P":["b"]})");
  ASSERT_EQ(f.tags.size(), 2u);
  EXPECT_EQ(f.tag('p')->values, std::vector<std::string>{"a"});
  EXPECT_EQ(f.tag('P')->values, std::vector<std::string>{"b"});
}

TEST(FilterParse, MatchesNothingForAnyEmptyListOrInvertedRange) {
  EXPECT_TRUE(parse(R"({"ids":[]})").matches_nothing());
  EXPECT_TRUE(parse(R"({"authors":[]})").matches_nothing());
  EXPECT_TRUE(parse(R"({"kinds":[]})").matches_nothing());
  EXPECT_TRUE(parse(R"({"#x":[]})").matches_nothing());
  EXPECT_TRUE(parse(R"({"since":5,"until":4})").matches_nothing());
  EXPECT_FALSE(parse(R"({"since":5,"until":5})").matches_nothing());
  EXPECT_FALSE(parse(R"({"limit":0})").matches_nothing());
}

}  // namespace
}  // namespace buzz::engine
