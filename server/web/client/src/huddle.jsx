// A channel's huddle: the header's Start/Join button, and while joined a bar
// with who is in it (speaking marked), whether it is being recorded, Mute,
// Record and Leave. Who is in a huddle one
// has not joined comes from the channel's lifecycle events (docs/reference/huddle.md §8.3);
// the audio itself (app/huddle.js) is loaded only on joining.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { LIFECYCLE_KINDS, activeHuddle, huddleIds, recordingOf } from './huddle_state.js';
import { usePeople } from './people.js';

// The huddle's own private, one-hour channel, then its 48100 in the parent
// (§2); a failed announcement archives the new channel again.
async function startHuddle(relay, parent) {
  const id = crypto.randomUUID();
  const made = await relay.publish({ kind: 9007, tags: [['h', id], ['name', 'huddle-' + id.slice(0, 8)], ['visibility', 'private'],
    ['channel_type', 'stream'], ['ttl', '3600']] });
  if (!made.ok) throw new Error(made.message);
  const told = await relay.publish({ kind: 48100, content: JSON.stringify({ ephemeral_channel_id: id }), tags: [['h', parent]] });
  if (!told.ok) {
    relay.publish({ kind: 9002, tags: [['h', id], ['archived', 'true']] });
    throw new Error(told.message);
  }
  return id;
}

export function useHuddle(channel, relay) {
  const [events, setEvents] = useState([]);
  useEffect(() => {
    let held = [];
    let live = false;
    return relay.subscribe([{ kinds: LIFECYCLE_KINDS, '#h': [channel.id], limit: 100 }],
      (ev) => { if (live) setEvents((e) => [...e, ev]); else held.push(ev); },
      // No render at EOSE when there is nothing: it would come amid the channel's first one.
      () => { live = true; if (held.length) setEvents(held); held = []; });
  }, [channel.id]);
  // `seen` counts the lifecycle events: a join (48101) may have made me a member
  // of a huddle's channel, whose recordings a REQ before it was refused.
  return useMemo(() => ({ active: activeHuddle(events), ids: huddleIds(events), seen: events.length }), [events]);
}

// The recordings of a channel's huddles, newest first: the 48111s in each
// huddle's own channel (docs/reference/huddle.md §11), which the relay sends to
// that channel's members only. Asked again at each lifecycle event (`seen`).
export function useRecordings(relay, { ids, seen }) {
  const [events, setEvents] = useState([]);
  const key = ids.join(',') + '/' + seen;
  useEffect(() => {
    if (!ids.length) return undefined;
    return relay.subscribe([{ kinds: [48111], '#h': ids, limit: 50 }],
      (ev) => setEvents((e) => (e.some((x) => x.id === ev.id) ? e : [...e, ev])), () => {});
  }, [key]);
  return useMemo(() => events.map(recordingOf).filter((r) => r.tracks.length).sort((a, b) => b.at - a.at), [events]);
}

// One track: a Play button, then the player. Its bytes are the huddle
// channel's (docs/reference/media.md §6.5), fetched with a signed request and
// played from a blob URL, which is let go when the row goes.
function Track({ track, api, name }) {
  const [src, setSrc] = useState(null);
  const [error, setError] = useState('');
  const [loading, setLoading] = useState(false);
  useEffect(() => () => { if (src) URL.revokeObjectURL(src); }, [src]);
  const load = async () => {
    setLoading(true);
    setError('');
    try {
      setSrc(URL.createObjectURL(await api.media(track.url)));
    } catch (e) {
      setError(e.message);
    }
    setLoading(false);
  };
  return (
    <li data-participant={track.participant} data-url={track.url}>
      <span>{name}{track.duration ? ` · ${Math.round(Number(track.duration))} s` : ''}</span>
      {src
        ? <audio controls autoplay src={src} aria-label={`${name}'s track`} />
        : <button class="play-track" disabled={loading} onClick={load}>{loading ? 'Loading…' : `Play ${name}'s track`}</button>}
      {error && <span class="error" role="alert">{error}</span>}
    </li>
  );
}

// The pane beside the messages: each recording with its participants' tracks.
export function RecordingsPane({ recordings, api, onClose }) {
  const people = usePeople();
  useEffect(() => { people.want([...new Set(recordings.flatMap((r) => r.tracks.map((t) => t.participant)))]); }, [recordings.length]);
  return (
    <aside class="recordings" aria-label="huddle recordings">
      <header><h2>Recordings ({recordings.length})</h2><button aria-label="close recordings" onClick={onClose}>✕</button></header>
      <ul>{recordings.map((r) => (
        <li key={r.id} data-id={r.id} class="recording-item">
          <time dateTime={new Date(r.at * 1000).toISOString()}>{new Date(r.at * 1000).toLocaleString()}</time>
          {' · '}{Math.round(r.duration)} s{r.interrupted ? ' · interrupted' : ''}
          <ul>{r.tracks.map((t) => <Track key={t.url} track={t} api={api} name={people.name(t.participant)} />)}</ul>
        </li>
      ))}</ul>
    </aside>
  );
}

export function HuddleButton({ active, onJoin }) {
  // When, for the test's join-to-first-frame figure (huddle_audio.js's counters).
  const join = () => { (window.__buzzHuddle ??= {}).clicked = Date.now(); onJoin(); };
  return (
    <button id="huddle-join" onClick={join} title={active ? 'Join the huddle with your microphone' : 'Start a huddle in this channel'}>
      {active ? `🎧 Join huddle${active.participants.length ? ` (${active.participants.length})` : ''}` : '🎧 Start huddle'}
    </button>
  );
}

// The bar under the header: joining, in the huddle, or why it ended.
// Mounted once per joining (a new key each time); unmounting leaves.
export function HuddleBar({ channel, relay, active, onClose, here, onBack }) {
  const people = usePeople();
  const [state, setState] = useState({ status: 'connecting', error: '', peers: [], muted: false, recording: null, notice: '' });
  const call = useRef(null);
  useEffect(() => {
    let gone = false;
    (async () => {
      try {
        const audio = await import('/app/huddle.js');
        const missing = await audio.opusMissing();
        if (missing) throw new Error(missing);
        const id = active?.id ?? await startHuddle(relay, channel.id);
        if (gone) return;
        call.current = await audio.joinHuddle({ relayUrl: relay.url, channel: id, parent: channel.id, signer: relay.signer,
          onChange: (s) => { if (!gone) setState(s); } });
        if (gone) call.current.leave();
      } catch (e) {
        if (!gone) setState({ status: 'ended', error: e.message, peers: [], muted: false, recording: null, notice: '' });
      }
    })();
    return () => { gone = true; call.current?.leave(); };
  }, []);
  useEffect(() => { people.want(state.peers.map((p) => p.pubkey)); }, [state.peers.length]);

  return (
    <div class="huddle" aria-label="huddle">
      {state.status === 'connecting' && <span id="huddle-status">Joining the huddle…</span>}
      {state.status === 'in' && <>
        <span id="huddle-status">🎧 In the huddle{here ? '' : <> of <button id="huddle-back" class="link" onClick={onBack}>#{channel.name}</button></>}</span>
        <ul id="huddle-roster">
          {state.peers.map((p) => (
            <li key={p.index} class={p.speaking ? 'speaking' : ''} data-pubkey={p.pubkey}>{people.name(p.pubkey)}</li>
          ))}
        </ul>
        {state.recording && <span id="huddle-recording" role="status" class="recording"
          title={`${people.name(state.recording.by)} started recording: everyone's audio is kept as a file for the channel's members`}>● Recording</span>}
        <button id="huddle-mute" aria-pressed={state.muted} onClick={() => call.current?.mute(!state.muted)}>{state.muted ? 'Unmute' : 'Mute'}</button>
        <button id="huddle-record" aria-pressed={!!state.recording} onClick={() => call.current?.record(!state.recording)}>
          {state.recording ? 'Stop recording' : 'Record'}</button>
        {state.notice && <span id="huddle-notice" role="alert">{state.notice}</span>}
        <button id="huddle-leave" onClick={onClose}>Leave</button>
      </>}
      {state.error && <>
        <span class="error" role="alert" id="huddle-error">{state.error}</span>
        <button id="huddle-dismiss" onClick={onClose}>Close</button>
      </>}
    </div>
  );
}
