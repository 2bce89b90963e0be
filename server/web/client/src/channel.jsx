// One channel: its messages live (REQ with #h), the composer (text and image
// upload), reactions, edits, deletions, a thread pane, typing and members.
import { useEffect, useRef, useState, useMemo } from 'preact/hooks';
import { apply, emptyChannel, timeline, thread, shortKey } from './model.js';
import { pubkeyFrom } from './signer.js';

const CLOCK = new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit' });
const REACTIONS = ['👍', '🎉', '❤️'];
const IMAGE_URL = /(https?:\/\/\S+\.(?:png|jpe?g|gif|webp))(?=\s|$)/gi;

function Content({ text }) {
  const parts = [];
  let last = 0;
  for (const m of text.matchAll(IMAGE_URL)) {
    parts.push(text.slice(last, m.index));
    const url = new URL(m[1]);
    // Only images this relay serves: the page's CSP allows no other source.
    parts.push(url.origin === location.origin ? <img class="inline" src={url.pathname} alt="image" loading="lazy" /> : m[1]);
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  return <div class="content">{parts}</div>;
}

function Message({ ev, state, me, names, onReact, onReply, onEdit, onDelete, inThread }) {
  const edit = state.edits.get(ev.id);
  const reactions = state.reactions.get(ev.id);
  const replies = state.replies.get(ev.id)?.filter((id) => !state.deleted.has(id)).length ?? 0;
  const time = CLOCK.format(ev.created_at * 1000);
  // The action buttons exist only for the message under the pointer or the
  // focus: six buttons times 500 messages would double the first render.
  const [hot, setHot] = useState(false);
  return (
    <article class="msg" data-id={ev.id} tabindex="0" onMouseEnter={() => setHot(true)} onFocusIn={() => setHot(true)}
      onMouseLeave={(e) => setHot(e.currentTarget.contains(document.activeElement))}>
      <header>
        <strong>{ev.pubkey === me ? 'you' : names[ev.pubkey] || shortKey(ev.pubkey)}</strong>
        <time>{time}</time>
        {edit && <span class="edited">(edited)</span>}
      </header>
      <Content text={edit ? edit.content : ev.content} />
      <footer>
        {reactions && [...reactions].map(([emoji, who]) => (
          <button class={who.has(me) ? 'reaction mine' : 'reaction'} onClick={() => onReact(ev, emoji)}>{emoji} {who.size}</button>
        ))}
        {!inThread && replies > 0 && <button class="reply replies" onClick={() => onReply(ev)}>{`${replies} repl${replies === 1 ? 'y' : 'ies'}`}</button>}
        {hot && <span class="actions">
          {REACTIONS.map((e) => <button class="react" aria-label={'react ' + e} onClick={() => onReact(ev, e)}>{e}</button>)}
          {!inThread && !replies && <button class="reply" onClick={() => onReply(ev)}>Reply</button>}
          {ev.pubkey === me && <button class="edit" onClick={() => onEdit(ev)}>Edit</button>}
          {ev.pubkey === me && <button class="delete" onClick={() => onDelete(ev)}>Delete</button>}
        </span>}
      </footer>
    </article>
  );
}

const label = (m) => m.display_name || shortKey(m.pubkey);

// "@al" at the end of the text: the members whose name starts with "al".
function suggestions(text, members, me) {
  const m = /(?:^|\s)@([\w.-]*)$/.exec(text);
  if (!m) return [];
  const q = m[1].toLowerCase();
  return members.filter((x) => x.pubkey !== me && label(x).toLowerCase().startsWith(q)).slice(0, 6);
}

function Composer({ placeholder, onSend, onTyping, api, onError, id, members, me }) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [preview, setPreview] = useState(null);
  const file = useRef(null);
  const mentioned = useRef(new Map());  // "@label" -> pubkey, for the p tags
  const options = suggestions(text, members, me);
  const pick = (m) => {
    setText(text.replace(/@[\w.-]*$/, '@' + label(m) + ' '));
    mentioned.current.set('@' + label(m), m.pubkey);
    document.getElementById(id)?.focus();
  };
  const send = async () => {
    if (!text.trim() && !preview) return;
    setBusy(true);
    try {
      let content = text.trim();
      const tags = [];
      for (const [name, pubkey] of mentioned.current) if (content.includes(name)) tags.push(['p', pubkey]);
      if (preview) {
        const d = await api.upload(preview.file);
        content = (content ? content + '\n' : '') + d.url;
        // NIP-92, checked by the relay against the upload (media.md §8).
        const extra = ['dim', 'blurhash', 'thumb'].filter((k) => d[k]).map((k) => `${k} ${d[k]}`);
        tags.push(['imeta', 'url ' + d.url, 'm ' + d.type, 'x ' + d.sha256, 'size ' + d.size, ...extra]);
      }
      await onSend(content, tags);
      setText('');
      mentioned.current.clear();
      if (preview) URL.revokeObjectURL(preview.url);
      setPreview(null);
    } catch (e) { onError(e.message); }
    setBusy(false);
  };
  const attach = (e) => {
    const f = e.target.files[0];
    if (f) setPreview({ file: f, url: URL.createObjectURL(f) });
    e.target.value = '';
  };
  return (
    <form class="composer" onSubmit={(e) => { e.preventDefault(); send(); }}>
      {options.length > 0 && (
        <ul class="mentions" role="listbox" aria-label="mention">
          {options.map((m) => <li key={m.pubkey}><button type="button" onClick={() => pick(m)}>@{label(m)}</button></li>)}
        </ul>
      )}
      {preview && <div class="preview"><img src={preview.url} alt="to upload" /><button type="button" onClick={() => setPreview(null)}>✕</button></div>}
      <textarea id={id} rows="1" value={text} placeholder={placeholder} aria-label={placeholder}
        onInput={(e) => { setText(e.target.value); onTyping?.(); }}
        onKeyDown={(e) => {
          if ((e.key === 'Tab' || e.key === 'Enter') && options.length) { e.preventDefault(); pick(options[0]); }
          else if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); send(); }
        }} />
      <input type="file" accept="image/*" ref={file} onChange={attach} hidden class="file" />
      <button type="button" class="attach" aria-label="attach an image" onClick={() => file.current.click()}>📎</button>
      <button type="submit" disabled={busy}>Send</button>
    </form>
  );
}

function Members({ channel, members, presence, relay, onChange, onError, onClose }) {
  const add = async (e) => {
    e.preventDefault();
    const who = e.target.who.value.trim();
    try {
      const r = await relay.publish({ kind: 9000, tags: [['h', channel.id], ['p', pubkeyFrom(who)]] });
      if (!r.ok) throw new Error(r.message);
      e.target.reset();
      onChange();
    } catch (err) { onError(err.message); }
  };
  return (
    <aside class="members" aria-label="members">
      <header><h3>Members ({members.length})</h3><button aria-label="close members" onClick={onClose}>✕</button></header>
      <ul>{members.map((m) => (
        <li key={m.pubkey}><span class={'dot ' + (presence[m.pubkey] || 'offline')} title={presence[m.pubkey] || 'offline'} />
          {label(m)} <small>{m.role}</small></li>
      ))}</ul>
      {channel.channel_type !== 'dm' && (
        <form onSubmit={add}>
          <input name="who" id="add-member" placeholder="add member: npub or hex" aria-label="add member" />
          <button type="submit" id="add-member-button">Add</button>
        </form>
      )}
    </aside>
  );
}

export function ChannelView({ channel, relay, api, me, onError, onChanged }) {
  const state = useRef(emptyChannel());
  const [version, setVersion] = useState(0);
  const [loaded, setLoaded] = useState(false);
  const [openThread, setOpenThread] = useState(null);
  const [typing, setTyping] = useState({});
  const [showMembers, setShowMembers] = useState(false);
  const [showSettings, setShowSettings] = useState(false);
  const started = useRef(performance.now());
  const list = useRef(null);
  const lastTyping = useRef(0);

  useEffect(() => {
    // History is folded in once at EOSE (one render for 500 messages); live
    // events after it are batched per animation frame.
    let batch = [];
    let scheduled = false;
    let live = false;
    const flush = () => { scheduled = false; apply(state.current, batch); batch = []; setVersion((v) => v + 1); };
    const unsub = relay.subscribe(
      [{ kinds: [9, 40003, 5, 9005, 7], '#h': [channel.id], limit: 500 }, { kinds: [20002], '#h': [channel.id] }],
      (ev) => {
        if (ev.kind === 20002) {
          if (ev.pubkey !== me) setTyping((t) => ({ ...t, [ev.pubkey]: Date.now() }));
          return;
        }
        batch.push(ev);
        if (live && !scheduled) { scheduled = true; requestAnimationFrame(flush); }
      },
      () => { live = true; flush(); setLoaded(true); },
    );
    const t = setInterval(() => setTyping((t) => Object.fromEntries(Object.entries(t).filter(([, at]) => Date.now() - at < 5000))), 1000);
    return () => { unsub(); clearInterval(t); };
  }, [channel.id]);

  // Members: the member pane, authors' names and mention suggestions.
  const [members, setMembers] = useState([]);
  const [presence, setPresence] = useState({});
  const loadMembers = async () => {
    const r = await api.get(`/api/channels/${channel.id}/members`);
    setMembers(r.members);
    if (r.members.length) setPresence(await api.get('/api/presence?pubkeys=' + r.members.map((m) => m.pubkey).join(',')));
  };
  useEffect(() => {
    loadMembers().catch((e) => onError(e.message));
    const t = setInterval(() => loadMembers().catch(() => {}), 30000);
    return () => clearInterval(t);
  }, [channel.id]);

  const items = useMemo(() => timeline(state.current), [version]);

  // First render after the history arrived: recorded for docs/performance.md.
  useEffect(() => {
    if (!loaded) return;
    requestAnimationFrame(() => {
      window.__buzzFirstRender = { channel: channel.id, messages: items.length, ms: performance.now() - started.current };
    });
  }, [loaded]);

  useEffect(() => { if (list.current) list.current.scrollTop = list.current.scrollHeight; }, [items.length, loaded]);

  const send = async (content, tags, root) => {
    const all = [['h', channel.id], ...tags];
    if (root) all.push(['e', root.id, '', 'reply'], ['p', root.pubkey]);
    const r = await relay.publish({ kind: 9, content, tags: all });
    if (!r.ok) throw new Error(r.message);
  };
  const react = async (ev, emoji) => {
    const mine = state.current.reactions.get(ev.id)?.get(emoji)?.get(me);
    const r = mine
      ? await relay.publish({ kind: 5, tags: [['e', mine], ['h', channel.id]] })
      : await relay.publish({ kind: 7, content: emoji, tags: [['h', channel.id], ['p', ev.pubkey], ['e', ev.id]] });
    if (!r.ok) onError(r.message);
  };
  const edit = async (ev) => {
    const text = prompt('Edit message', state.current.edits.get(ev.id)?.content ?? ev.content);
    if (text === null) return;
    const r = await relay.publish({ kind: 40003, content: text, tags: [['h', channel.id], ['e', ev.id]] });
    if (!r.ok) onError(r.message);
  };
  const del = async (ev) => {
    const r = await relay.publish({ kind: 5, tags: [['e', ev.id], ['h', channel.id]] });
    if (!r.ok) onError(r.message);
  };
  const typingNow = () => {
    if (Date.now() - lastTyping.current < 3000) return;
    lastTyping.current = Date.now();
    relay.publish({ kind: 20002, tags: [['h', channel.id]] });
  };

  const role = members.find((m) => m.pubkey === me)?.role;
  const admin = role === 'owner' || role === 'admin';
  // 9002: the topic is any member's to set; name and description the admins'.
  const saveSettings = async (e) => {
    e.preventDefault();
    const f = e.target;
    const tags = [['h', channel.id], ['topic', f.topic.value]];
    if (admin) tags.push(['name', f.name.value], ['about', f.about.value]);
    const r = await relay.publish({ kind: 9002, tags });
    if (!r.ok) return onError(r.message);
    setShowSettings(false);
    onChanged();
  };

  const names = Object.fromEntries(members.map((m) => [m.pubkey, label(m)]));
  const props = { state: state.current, me, names, onReact: react, onReply: setOpenThread, onEdit: edit, onDelete: del };
  const typers = Object.keys(typing);
  return (
    <div class="channel">
      <header class="channel-head">
        <h1>{channel.channel_type === 'dm' ? (channel.participants || []).join(', ') : (channel.visibility === 'private' ? '🔒 ' : '# ') + channel.name}</h1>
        {channel.topic && <span class="topic">{channel.topic}</span>}
        <span>
          {channel.channel_type !== 'dm' && <button id="toggle-settings" onClick={() => setShowSettings(!showSettings)}>Settings</button>}
          <button id="toggle-members" onClick={() => setShowMembers(!showMembers)}>Members</button>
        </span>
      </header>
      {showSettings && (
        <form class="settings" onSubmit={saveSettings} aria-label="channel settings">
          <input name="topic" id="settings-topic" placeholder="topic" defaultValue={channel.topic || ''} aria-label="topic" />
          {admin && <input name="name" placeholder="name" defaultValue={channel.name} aria-label="name" />}
          {admin && <input name="about" placeholder="description" defaultValue={channel.description} aria-label="description" />}
          <button type="submit" id="save-settings">Save</button>
        </form>
      )}
      <div class="body">
        <section class="messages" ref={list} aria-live="polite" aria-busy={!loaded}>
          {items.map((ev) => <Message key={ev.id} ev={ev} {...props} />)}
          {loaded && !items.length && <p class="empty">No messages yet.</p>}
        </section>
        {openThread && (
          <aside class="thread" aria-label="thread">
            <header><h3>Thread</h3><button aria-label="close thread" onClick={() => setOpenThread(null)}>✕</button></header>
            <Message ev={openThread} {...props} inThread />
            {thread(state.current, openThread.id).map((ev) => <Message key={ev.id} ev={ev} {...props} inThread />)}
            <Composer id="thread-input" placeholder="Reply in thread" api={api} onError={onError} members={members} me={me}
              onSend={(c, tags) => send(c, tags, openThread)} />
          </aside>
        )}
        {showMembers && <Members channel={channel} members={members} presence={presence} relay={relay} onError={onError}
          onChange={() => loadMembers().catch((e) => onError(e.message))} onClose={() => setShowMembers(false)} />}
      </div>
      <p class="typing">{typers.length ? `${typers.map((pk) => names[pk] || shortKey(pk)).join(', ')} typing…` : ''}</p>
      <Composer id="message-input" placeholder={'Message ' + (channel.name || 'DM')} api={api} onError={onError} members={members} me={me}
        onSend={(c, tags) => send(c, tags)} onTyping={typingNow} />
    </div>
  );
}
