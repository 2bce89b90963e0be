// The channel browser: the open channels of this relay, found by name or
// topic, each joined with one click (kind 9021, docs/reference/channels.md §3.3) or
// opened (one I am not in is read without joining, by its name); those I am not in come first. The list is the sidebar's own
// (GET /api/channels, which lists every channel I may read, with is_member).
import { useState } from 'preact/hooks';

export function ChannelBrowser({ channels, relay, onOpen, onJoined, onError }) {
  const [q, setQ] = useState('');
  const [joining, setJoining] = useState(null);
  const words = q.trim().toLowerCase();
  const found = channels.filter((c) => c.channel_type !== 'dm' && (c.visibility === 'open' || c.is_member) && !c.archived_at &&
    (!words || `${c.name} ${c.topic || ''} ${c.purpose || ''}`.toLowerCase().includes(words)));
  const join = async (c) => {
    setJoining(c.id);
    const r = await relay.publish({ kind: 9021, tags: [['h', c.id]] });
    setJoining(null);
    if (!r.ok) return onError(`You could not join #${c.name}: ${r.message}`);
    onJoined(c.id);
  };
  const row = (c) => (
    <li key={c.id} data-browse={c.name}>
      <span class="about">
        <button class="preview" onClick={() => onOpen(c.id)}><strong>{c.visibility === 'private' ? '🔒 ' : '# '}{c.name}</strong></button>
        <small>{c.member_count} member{c.member_count === 1 ? '' : 's'}{c.topic ? ' · ' + c.topic : ''}</small>
        {c.purpose && <span class="purpose">{c.purpose}</span>}
      </span>
      {c.is_member
        ? <button class="open-channel" onClick={() => onOpen(c.id)} aria-label={`open #${c.name}`}>Open</button>
        : <button class="join" disabled={joining === c.id} onClick={() => join(c)} aria-label={`join #${c.name}`}>Join</button>}
    </li>
  );
  const notIn = found.filter((c) => !c.is_member), mine = found.filter((c) => c.is_member);
  return (
    <section class="panel browse" id="channel-browser">
      <h1>Browse channels</h1>
      <input id="browse-filter" type="search" placeholder="Find a channel by name or topic" aria-label="find a channel" value={q}
        onInput={(e) => setQ(e.target.value)} />
      <h2>Not joined ({notIn.length})</h2>
      {notIn.length ? <ul>{notIn.map(row)}</ul> : <p class="empty">{words ? 'No channel you are not in matches.' : 'You are in every open channel.'}</p>}
      <h2>Joined ({mine.length})</h2>
      {mine.length ? <ul>{mine.map(row)}</ul> : <p class="empty">None yet.</p>}
    </section>
  );
}
