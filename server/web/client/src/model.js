// What a channel's events mean together: messages with their newest edit,
// deletions, reactions and thread replies. Pure, so one pass per batch.
const MESSAGE_KINDS = [9];

export const tag = (ev, name) => ev.tags.find((t) => t[0] === name)?.[1];

// The thread root of a reply (NIP-10 markers), or undefined for a top-level message.
export function threadRoot(ev) {
  const marked = ev.tags.filter((t) => t[0] === 'e' && t.length >= 4);
  return (marked.find((t) => t[3] === 'root') ?? marked.find((t) => t[3] === 'reply'))?.[1];
}

export function emptyChannel() {
  return { messages: new Map(), edits: new Map(), deleted: new Set(), reactions: new Map(), replies: new Map(), pins: new Map(), arrived: new Map(), next: 0 };
}

// Folds events into the state in place; returns it for chaining.
export function apply(state, events) {
  for (const ev of events) {
    if (MESSAGE_KINDS.includes(ev.kind)) {
      if (state.messages.has(ev.id)) continue;
      state.messages.set(ev.id, ev);
      state.arrived.set(ev.id, state.next++);
      const root = threadRoot(ev);
      if (root) {
        if (!state.replies.has(root)) state.replies.set(root, []);
        state.replies.get(root).push(ev.id);
      }
    } else if (ev.kind === 40003) {
      const target = tag(ev, 'e');
      const prev = state.edits.get(target);
      if (!prev || prev.created_at <= ev.created_at) state.edits.set(target, ev);
    } else if (ev.kind === 40004) {
      const target = tag(ev, 'e');
      if (target) state.pins.set(ev.id, { target, pubkey: ev.pubkey, created_at: ev.created_at });
    } else if (ev.kind === 5 || ev.kind === 9005) {
      for (const t of ev.tags) if (t[0] === 'e') state.deleted.add(t[1]);
    } else if (ev.kind === 7) {
      const target = [...ev.tags].reverse().find((t) => t[0] === 'e')?.[1];
      if (!target) continue;
      if (!state.reactions.has(target)) state.reactions.set(target, new Map());
      const byEmoji = state.reactions.get(target);
      const emoji = ev.content || '+';
      if (!byEmoji.has(emoji)) byEmoji.set(emoji, new Map());
      byEmoji.get(emoji).set(ev.pubkey, ev.id);
    }
  }
  for (const [, byEmoji] of state.reactions) {
    for (const [emoji, who] of byEmoji) {
      for (const [pk, id] of who) if (state.deleted.has(id)) who.delete(pk);
      if (!who.size) byEmoji.delete(emoji);
    }
  }
  return state;
}

// Top-level messages oldest first, deleted ones left out.
export function timeline(state) {
  const out = [];
  for (const ev of state.messages.values()) {
    if (!threadRoot(ev) && !state.deleted.has(ev.id)) out.push(ev);
  }
  return out.sort(byTime(state));
}

// Oldest first; within one second, in the order the relay delivered them
// (never by id: that order means nothing).
const byTime = (state) => (a, b) => a.created_at - b.created_at || state.arrived.get(a.id) - state.arrived.get(b.id);

export function thread(state, rootId) {
  return (state.replies.get(rootId) ?? [])
    .map((id) => state.messages.get(id))
    .filter((ev) => !state.deleted.has(ev.id))
    .sort(byTime(state));
}

// The pinned messages, newest pin first: [{ev, by: Map(pubkey -> pin id)}]. A
// pin is taken back by deleting it (kind 5), each person their own.
export function pinned(state) {
  const byTarget = new Map();
  for (const [id, pin] of state.pins) {
    const ev = state.messages.get(pin.target);
    if (state.deleted.has(id) || !ev || state.deleted.has(ev.id)) continue;
    if (!byTarget.has(ev.id)) byTarget.set(ev.id, { ev, by: new Map(), at: 0 });
    const entry = byTarget.get(ev.id);
    entry.by.set(pin.pubkey, id);
    entry.at = Math.max(entry.at, pin.created_at);
  }
  return [...byTarget.values()].sort((a, b) => b.at - a.at);
}

export const shortKey = (hex) => hex.slice(0, 8);
