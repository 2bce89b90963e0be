// Search results and the feed (mentions, needs-action with approvals).
import { useEffect, useState } from 'preact/hooks';
import { tag } from './model.js';
import { usePeople, named } from './people.js';
import { workflowName } from './channel.jsx';

export function SearchView({ q, api, onOpen }) {
  const people = usePeople();
  const [result, setResult] = useState(null);
  const [error, setError] = useState('');
  useEffect(() => {
    api.get('/api/search?limit=50&q=' + encodeURIComponent(q)).then((r) => { people.want(r.hits.map((h) => h.pubkey)); setResult(r); }, (e) => setError(e.message));
  }, [q]);
  return (
    <section class="panel" id="search-results">
      <h1>Search: {q}</h1>
      {error && <p class="error">{error}</p>}
      {result && !result.hits.length && <p class="empty">Nothing found.</p>}
      <ul>{result?.hits.map((h) => (
        <li key={h.event_id}>
          <button class="hit" disabled={!h.channel_id} onClick={() => onOpen(h.channel_id)}>
            <small>#{h.channel_name || 'global'} · {people.name(h.pubkey)}</small>
            <span>{h.content}</span>
          </button>
        </li>
      ))}</ul>
    </section>
  );
}

function Approval({ item, relay, onAnswered, people }) {
  const [done, setDone] = useState('');
  const answer = async (kind, word) => {
    const r = await relay.publish({ kind, tags: [['d', tag(item, 'approval')]] });
    setDone(r.ok ? word : 'refused: ' + r.message);
    if (r.ok) onAnswered();
  };
  return (
    <li class="approval">
      <small>{workflowName(item)} · #{item.channel_name}</small> <span>{named(item.content, people)}</span>
      {done ? <em>{done}</em> : (
        <span>
          <button class="grant" onClick={() => answer(46030, 'granted')}>Grant</button>
          <button class="deny" onClick={() => answer(46031, 'denied')}>Deny</button>
        </span>
      )}
    </li>
  );
}

// The feed lists every approval asked of me in the last week, answered or
// not; those the relay has since settled (its 46011 granted, 46012 denied or
// expired, in the same channel with the same approval hash) or past their
// expiration wait for nobody.
export async function pending(relay, asked) {
  const now = Math.floor(Date.now() / 1000);
  const open = asked.filter((i) => !(Number(tag(i, 'expiration')) < now));
  const settled = new Set();
  const channels = [...new Set(open.map((i) => i.channel_id || tag(i, 'h')).filter(Boolean))];
  if (!channels.length) return open;
  // One query for every channel (a REQ per channel would not start in a bounded number of frames).
  const since = Math.min(...open.map((i) => i.created_at));
  for (const ev of await relay.query([{ kinds: [46011, 46012], '#h': channels, since }])) settled.add(tag(ev, 'approval'));
  return open.filter((i) => !settled.has(tag(i, 'approval')));
}

export function FeedView({ api, relay, onOpen, onAnswered }) {
  const people = usePeople();
  const [feed, setFeed] = useState(null);
  const [error, setError] = useState('');
  useEffect(() => {
    (async () => {
      const { feed } = await api.get('/api/feed?types=mentions,needs_action');
      people.want(feed.mentions.map((i) => i.pubkey));
      feed.needs_action = await pending(relay, feed.needs_action.filter((i) => i.kind === 46010));
      setFeed(feed);
    })().catch((e) => setError(e.message));
  }, []);
  return (
    <section class="panel" id="feed">
      <h1>Feed</h1>
      {error && <p class="error">{error}</p>}
      <h2>Needs action</h2>
      <ul>{feed?.needs_action.map((i) => <Approval key={i.id} item={i} relay={relay} onAnswered={onAnswered} people={people} />)}</ul>
      {feed && !feed.needs_action.length && <p class="empty">Nothing waiting for you.</p>}
      <h2>Mentions</h2>
      <ul>{feed?.mentions.map((i) => (
        <li key={i.id}><button class="hit" onClick={() => onOpen(i.channel_id)}><small>#{i.channel_name} · {people.name(i.pubkey)}</small><span>{i.content}</span></button></li>
      ))}</ul>
      {feed && !feed.mentions.length && <p class="empty">No mentions.</p>}
    </section>
  );
}
