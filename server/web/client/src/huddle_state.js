// Which huddle is going on in a channel, from its lifecycle events (docs/reference/huddle.md
// §8.3): 48100 starts one for its ephemeral channel, 48101/48102 add or remove
// the `p` participant, 48103 ends it for good. Pure, like model.js.
export const LIFECYCLE_KINDS = [48100, 48101, 48102, 48103];

const huddleOf = (ev) => {
  try { return JSON.parse(ev.content).ephemeral_channel_id; } catch { return undefined; }
};

// The newest huddle never ended, as {id, participants: [pubkey]}, or null.
export function activeHuddle(events) {
  const huddles = new Map();  // id -> {id, participants: Set, ended, at}
  // Within one second, the kind's order is the lifecycle's: started, joined, left, ended.
  for (const ev of [...events].sort((a, b) => a.created_at - b.created_at || a.kind - b.kind)) {
    const id = huddleOf(ev);
    if (!id) continue;
    if (ev.kind === 48100) {
      const prev = huddles.get(id);
      if (!prev?.ended) huddles.set(id, { id, participants: prev?.participants ?? new Set(), ended: false, at: ev.created_at });
      continue;
    }
    const h = huddles.get(id);
    if (!h || h.ended) continue;
    const who = ev.tags.find((t) => t[0] === 'p')?.[1];
    if (ev.kind === 48103) h.ended = true;
    else if (ev.kind === 48101 && who) h.participants.add(who);
    else if (ev.kind === 48102 && who) h.participants.delete(who);
  }
  const live = [...huddles.values()].filter((h) => !h.ended).sort((a, b) => b.at - a.at)[0];
  return live ? { id: live.id, participants: [...live.participants] } : null;
}
