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

// Every huddle a channel's lifecycle events name (started or not yet ended):
// where its recordings are (a 48111 in the huddle's own channel).
export function huddleIds(events) {
  return [...new Set(events.filter((ev) => ev.kind === 48100).map(huddleOf).filter(Boolean))].sort();
}

// A 48111 as the page shows it: when, how long, and each participant's track
// (its imeta: url, duration, participant), in the order listed.
export function recordingOf(ev) {
  let content = {};
  try { content = JSON.parse(ev.content); } catch { /* the tags still list the tracks */ }
  const tracks = ev.tags.filter((t) => t[0] === 'imeta').map((t) => Object.fromEntries(t.slice(1).map((f) => {
    const at = f.indexOf(' ');
    return at < 0 ? [f, ''] : [f.slice(0, at), f.slice(at + 1)];
  }))).filter((f) => f.url && f.participant);
  return { id: ev.id, at: ev.created_at, duration: Number(content.duration) || 0, interrupted: content.interrupted === true, tracks };
}
