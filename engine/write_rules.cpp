// The storage rules of a write; see write_rules.h.
#include "engine/write_rules.h"

#include <algorithm>

#include "engine/deletion_target.h"
#include "engine/kind_numbers.h"
#include "engine/kinds.h"

namespace buzz::engine {
namespace {

WriteResult invalid(std::string reason) { return {WriteOutcome::kInvalid, std::move(reason), {}}; }

// Deletes a live event and says so in `result`.
void remove(WriteView& view, const Id& id, WriteResult& result) {
  view.soft_delete(id);
  result.removed.push_back(id);
}

// A kind 5's own target: `cleared` are the ids the caller allows whatever their author.
Result<WriteResult> apply_deletion(WriteView& view, const Event& e, std::span<const Id> cleared) {
  auto target = parse_deletion_target(e);
  if (!target) return invalid(target.error());
  WriteResult result;
  if (target->by_id) {
    auto stored = view.find(target->id);
    if (!stored) return Error{stored.error()};
    if (!*stored) return invalid("invalid: target event not found");
    const bool allowed = std::find(cleared.begin(), cleared.end(), target->id) != cleared.end();
    if (!allowed && (*stored)->pubkey != e.pubkey) return invalid("invalid: must be event author");
    if ((*stored)->live) remove(view, target->id, result);
    return result;
  }
  if (kind_class(target->kind) != KindClass::kAddressable) return result;
  auto current = view.current(replace_slot(target->kind, target->pubkey, {}, target->d));
  if (!current) return Error{current.error()};
  if (*current) remove(view, (*current)->id, result);
  return result;
}

}  // namespace

ReplaceSlot replace_slot(uint16_t kind, const Pubkey& pubkey, std::string_view channel, std::string_view d) {
  const bool by_channel =
      kind_class(kind) == KindClass::kReplaceable || (kind >= kind::kGroupMetadata && kind <= kind::kGroupMembers);
  return {kind, pubkey, by_channel, by_channel ? channel : d};
}

Result<WriteResult> apply_write_rules(WriteView& view, const WriteRequest& request) {
  const Event& e = *request.event;
  auto known = view.contains(e.id);
  if (!known) return Error{known.error()};
  if (*known) return WriteResult{WriteOutcome::kDuplicate, {}, {}};
  if (std::string reason = view.unstorable(e); !reason.empty()) return invalid(std::move(reason));
  WriteResult result;
  if (e.kind == kind::kDeletion) {
    auto deletion = apply_deletion(view, e, request.deletes);
    if (!deletion || deletion->outcome == WriteOutcome::kInvalid) return deletion;
    result = std::move(*deletion);
  }
  const KindClass cls = kind_class(e.kind);
  if (cls != KindClass::kReplaceable && cls != KindClass::kAddressable) {
    view.add(e, request.channel, nullptr);
  } else {
    const std::string_view d = e.first_tag_value("d");
    if (cls == KindClass::kAddressable && d.size() > kMaxDTagBytes) {
      return invalid("invalid: d tag too long (" + std::to_string(d.size()) + " bytes, max 1024)");
    }
    const ReplaceSlot slot = replace_slot(e.kind, e.pubkey, request.channel, d);
    auto current = view.current(slot);
    if (!current) return Error{current.error()};
    if (const auto& held = *current) {
      // Newer wins; on a tie the lowest id wins (docs/reference/protocol.md §10).
      if (e.created_at < held->created_at || (e.created_at == held->created_at && !(e.id < held->id))) {
        return WriteResult{WriteOutcome::kStale, {}, {}};
      }
      remove(view, held->id, result);
    }
    view.add(e, request.channel, &slot);
  }
  // Events the caller deletes on its own authority (a 9005, a deleted channel's state).
  for (const Id& id : request.deletes) {
    auto stored = view.find(id);
    if (!stored) return Error{stored.error()};
    if (*stored && (*stored)->live) remove(view, id, result);
  }
  return result;
}

}  // namespace buzz::engine
