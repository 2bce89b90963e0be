// One channel: its messages live (REQ with #h) and older ones on demand, the
// composer (text and image upload), reactions, edits, deletions, a thread
// pane, typing, and the members, settings and canvas panes.
import { useEffect, useLayoutEffect, useRef, useState, useMemo } from 'preact/hooks';
import { apply, emptyChannel, timeline, thread, threadRoot, pinned } from './model.js';
import { usePeople, named } from './people.js';
import { Members, Settings } from './admin.jsx';
import { Canvas } from './canvas.jsx';
import { Markdown, firstLink } from './markdown.jsx';
import { Avatar } from './avatar.jsx';
import { EmojiButton, EmojiPicker, emojiSuggestions, emojiTags, emojiOf, CustomEmoji, ReactionEmoji, useTeamEmoji } from './emoji.jsx';
import { useHuddle, useRecordings, HuddleButton, RecordingsPane } from './huddle.jsx';
import { ours } from './api.js';
import { firstRender } from './startup.js';

const CLOCK = new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit' });
const FULL = new Intl.DateTimeFormat([], { dateStyle: 'full', timeStyle: 'short' });
const REACTIONS = ['👍', '🎉', '❤️'];
const KINDS = [9, 40003, 5, 9005, 7, 40004];
const RECEIPTS = 50;  // my newest messages whose receipts are shown
const PAGE = 500;  // the newest PAGE events first, PAGE more each time the reader scrolls back
const IMAGE_URL = /\.(?:png|jpe?g|gif|webp)$/i;

// 1234567 -> "1.2 MB"
function bytes(n) {
  const units = ['B', 'KB', 'MB', 'GB'];
  let i = 0;
  for (n = Number(n) || 0; n >= 1000 && i < units.length - 1; i++) n /= 1000;
  return (i ? n.toFixed(1) : String(n)) + ' ' + units[i];
}

// An upload that is not an image: its name, type and size, and a download.
function FileCard({ path, meta }) {
  const name = meta.filename || decodeURIComponent(path.split('/').pop());
  return (
    <span class="file-card">
      <a href={path} download={name} target="_blank" rel="noopener noreferrer">📄 {name}</a>
      <small>{meta.m} · {bytes(meta.size)}</small>
    </span>
  );
}

// NIP-92: what a message's imeta tags say about its URLs (thumb, dim, …).
function imetaOf(tags) {
  const byUrl = new Map();
  for (const t of tags) {
    if (t[0] !== 'imeta') continue;
    const fields = {};
    for (const part of t.slice(1)) {
      const at = part.indexOf(' ');
      if (at > 0) fields[part.slice(0, at)] = part.slice(at + 1);
    }
    if (fields.url) byUrl.set(fields.url, fields);
  }
  return byUrl;
}


// An image the relay serves, inline: its thumbnail when the upload has one
// (320 px, not the whole photo), a link to the full image, and its size known
// before it loads (from dim), so the list does not jump when it arrives.
function InlineImage({ path, meta }) {
  const thumb = meta?.thumb && ours(meta.thumb);
  const [w, h] = (meta?.dim || '').split('x').map(Number);
  const style = w > 0 && h > 0 ? { aspectRatio: `${w} / ${h}`, width: Math.min(w, 360, (300 * w) / h) + 'px' } : undefined;
  return <a href={path} target="_blank" rel="noopener noreferrer"><img class="inline" src={thumb || path} style={style} alt="image" loading="lazy" /></a>;
}

// The message as markdown (markdown.jsx: never HTML); an upload of ours in
// it is drawn: an image inline, any other file as a card (by its imeta
// type), and an image URL without one inline as before.
function Content({ text, tags }) {
  let imeta;
  const url = (href) => {
    const path = ours(href);
    if (!path) return null;
    imeta ??= imetaOf(tags);
    const meta = imeta.get(href);
    const image = meta ? meta.m?.startsWith('image/') : IMAGE_URL.test(href);
    if (!meta && !image) return null;
    return image ? <InlineImage path={path} meta={meta} /> : <FileCard path={path} meta={meta} />;
  };
  return <Markdown class="content" dir="auto" text={text} url={url} emoji={emojiOf(tags)} />;
}

// A workflow's name, from its tag (docs/reference/workflows.md §12).
export const workflowName = (ev) => ev.tags.find((t) => t[0] === 'workflow')?.[2] || 'Workflow';

// The raw token's links in an approval's DM (docs/reference/workflows.md §11.2).
const APPROVAL_LINKS = /\/api\/approvals\/([0-9a-f-]{36})\/grant\b/;
const APPROVAL_LINES = /^(?:Approve|Deny): POST \S+\/api\/approvals\/[0-9a-f-]{36}\/(?:grant|deny)$/gm;

function ApprovalButtons({ token, api }) {
  const [done, setDone] = useState('');
  const answer = (action, word) => api.post(`/api/approvals/${token}/${action}`, {})
    .then(() => setDone(word), (e) => setDone('Not answered: ' + e.message));
  if (done) return <p class="approval-answer" role="status">{done}</p>;
  return (
    <p class="approval-answer">
      <button class="grant" onClick={() => answer('grant', 'You granted it.')}>Grant</button>{' '}
      <button class="deny" onClick={() => answer('deny', 'You denied it.')}>Deny</button>
    </p>
  );
}

// What a link in a message shows under it: its page's title, description and
// picture, as the relay fetched them (GET /api/link-preview: the browser never
// contacts the site; the picture is a data: URL). Asked for once per link and
// page, when the message comes into view; nothing is shown when there is none.
const previews = new Map();  // url -> Promise of the preview, or null
function LinkPreview({ url, api }) {
  const [p, setP] = useState(null);
  const slot = useRef(null);
  useEffect(() => {
    let live = true;
    const seen = new IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      seen.disconnect();
      if (!previews.has(url)) {
        previews.set(url, api.get('/api/link-preview?url=' + encodeURIComponent(url)).catch((e) => {
          if (/too many|network|fetch/i.test(e.message)) previews.delete(url);  // asked again later
          return null;
        }));
      }
      previews.get(url).then((v) => { if (live) setP(v); });
    });
    seen.observe(slot.current);
    return () => { live = false; seen.disconnect(); };
  }, [url]);
  if (!p) return <span ref={slot} class="preview-slot" />;
  return (
    <a class="link-preview" href={p.url} target="_blank" rel="noopener noreferrer">
      {p.image && <img src={p.image} alt="" />}
      <span>
        {p.site_name && <small>{p.site_name}</small>}
        <strong>{p.title || p.url}</strong>
        {p.description && <span class="description">{p.description}</span>}
      </span>
    </a>
  );
}

// The one message showing its actions: entering or focusing another takes them.
let hotOff = null;

function Message({ ev, state, me, people, api, onReact, onPickReaction, onReply, onEdit, onDelete, onPin, pins, receipts, inThread, pending, onRetry, onDiscard, cont, newest }) {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const edit = state.edits.get(ev.id);
  const reactions = state.reactions.get(ev.id);
  const replies = state.replies.get(ev.id)?.filter((id) => !state.deleted.has(id)).length ?? 0;
  const time = CLOCK.format(ev.created_at * 1000);
  // The action buttons exist only for the message under the pointer or the
  // focus: six buttons times 500 messages would double the first render. At
  // most one message has them: the last one entered or focused.
  const [hot, setHot] = useState(false);
  const off = useRef(null);
  off.current ??= () => setHot(false);
  const take = () => {
    if (hotOff && hotOff !== off.current) hotOff();
    hotOff = off.current;
    setHot(true);
  };
  const drop = () => { setHot(false); if (hotOff === off.current) hotOff = null; };
  useEffect(() => () => { if (hotOff === off.current) hotOff = null; }, []);
  if (pending) {
    return (
      <article class={'pending ' + pending.state} data-id={ev.id} tabindex="0">
        <header><strong class="author">{people.name(ev.pubkey)}</strong><time>{time}</time></header>
        <Content text={ev.content} tags={ev.tags} />
        <footer>{pending.state === 'sending'
          ? <span class="sending" role="status">sending…</span>
          : <span class="not-sent" role="alert">Not sent: {pending.reason}{' '}
            <button class="retry" onClick={() => onRetry(ev.id)}>Retry</button>
            <button class="discard" onClick={() => onDiscard(ev.id)}>Discard</button></span>}
        </footer>
      </article>
    );
  }
  // A workflow's post is signed by the relay: said under the workflow's name,
  // with the people it names (64 hex characters) by their names; an approval's
  // grant and deny links (its DM from the relay) are buttons.
  const workflow = ev.tags.some((t) => t[0] === 'buzz:workflow');
  let text = workflow ? named(edit ? edit.content : ev.content, people) : edit ? edit.content : ev.content;
  const author = workflow ? workflowName(ev) : people.name(ev.pubkey);
  const token = workflow && ev.pubkey === people.relayKey && APPROVAL_LINKS.exec(text)?.[1];
  if (token) text = text.replace(APPROVAL_LINES, '').trimEnd();
  const link = firstLink(text);
  const shown = link && !ours(link) ? link : null;
  const pin = pins?.get(ev.id);
  // cont: the same person a moment after their previous message, drawn under
  // it without the name (kept for screen readers) and its time on hover.
  return (
    <article class={'msg' + (cont ? ' cont' : '') + (newest ? ' newest-mine' : '')} data-id={ev.id} tabindex="0" onMouseEnter={take} onFocusIn={take}
      onMouseLeave={(e) => { if (!e.currentTarget.contains(document.activeElement)) drop(); }}
      onFocusOut={(e) => { if (!e.currentTarget.contains(e.relatedTarget) && !e.currentTarget.matches(':hover')) drop(); }}>
      {!cont && <Avatar pubkey={ev.pubkey} people={people} workflow={workflow} />}
      <div class="msg-body">
        <header>
          <strong class="author">{author}</strong>{workflow && <span class="badge">workflow</span>}
          <time dateTime={new Date(ev.created_at * 1000).toISOString()} title={FULL.format(ev.created_at * 1000)}>{time}</time>
          {edit && <span class="edited">(edited)</span>}
        </header>
        {pin && <p class="pinned-mark">📌 Pinned by {[...pin.by.keys()].map((pk) => (pk === me ? 'you' : people.name(pk))).join(', ')}</p>}
        {editing ? <EditBox text={text} onSave={(t) => { setEditing(false); if (t !== text) onEdit(ev, t); }} onCancel={() => setEditing(false)} />
          : <Content text={text} tags={ev.tags} />}
        {token && <ApprovalButtons token={token} api={api} />}
        {!editing && shown && <LinkPreview url={shown} api={api} />}
        {confirming && <p class="confirm" role="alert">Delete this message for everyone?{' '}
          <button class="confirm-delete danger" onClick={() => { setConfirming(false); onDelete(ev); }}>Delete</button>{' '}
          <button class="cancel-delete" onClick={() => setConfirming(false)}>Cancel</button></p>}
        <footer>
          {reactions && [...reactions].map(([emoji, who]) => (
            <button class={who.has(me) ? 'reaction mine' : 'reaction'} aria-pressed={who.has(me)} aria-label={`${emoji} ${who.size}, ${[...who.keys()].map((pk) => people.name(pk)).join(', ')}`}
              title={[...who.keys()].map((pk) => people.name(pk)).join(', ')} onClick={() => onReact(ev, emoji)}><ReactionEmoji emoji={emoji} /> {who.size}</button>
          ))}
          {!inThread && replies > 0 && <button class="reply replies" onClick={() => onReply(ev)}>{`${replies} repl${replies === 1 ? 'y' : 'ies'}`}</button>}
          {ev.pubkey === me && receipts?.has(ev.id) && <Receipt r={receipts.get(ev.id)} />}
          {hot && !editing && <span class="actions">
            {REACTIONS.map((e) => <button class="react" aria-label={'react ' + e} onClick={() => onReact(ev, e)}>{e}</button>)}
            <button class="react-any" aria-label="react with any emoji" title="react with any emoji" aria-haspopup="dialog"
              onClick={(e) => onPickReaction(ev, e.currentTarget)}>☺</button>
            {!inThread && !replies && <button class="reply" onClick={() => onReply(ev)}>Reply</button>}
            {!inThread && <button class={pin?.by.has(me) ? 'unpin' : 'pin'} onClick={() => onPin(ev, pin?.by.get(me))}>{pin?.by.has(me) ? 'Unpin' : 'Pin'}</button>}
            {ev.pubkey === me && <button class="edit" onClick={() => setEditing(true)}>Edit</button>}
            {ev.pubkey === me && <button class="delete" onClick={() => setConfirming(true)}>Delete</button>}
          </span>}
        </footer>
      </div>
    </article>
  );
}

// Under my own message: how many of the channel's other members were sent it, and have read it.
// Shown under my newest message, and under the others when pointed at or focused (app.css).
function Receipt({ r }) {
  return <span class="receipt" title="members of the channel this relay sent it to, and who read until it">
    {`delivered to ${r.delivered} of ${r.members} · read by ${r.read}`}</span>;
}

// Editing a message where it is: Enter saves, Shift+Enter is a new line, Esc cancels.
function EditBox({ text, onSave, onCancel }) {
  const [value, setValue] = useState(text);
  const box = useRef(null);
  useEffect(() => { box.current?.focus(); box.current?.setSelectionRange(value.length, value.length); }, []);
  return (
    <form class="edit-box" onSubmit={(e) => { e.preventDefault(); onSave(value); }}>
      <textarea ref={box} class="edit-text" dir="auto" aria-label="edit the message" value={value} rows={Math.min(8, value.split('\n').length)}
        onInput={(e) => setValue(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); onSave(value); }
          else if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); onCancel(); }
        }} />
      <span><button type="submit" class="save-edit">Save</button> <button type="button" class="cancel-edit" onClick={onCancel}>Cancel</button></span>
    </form>
  );
}

const DAY = new Intl.DateTimeFormat([], { weekday: 'long', day: 'numeric', month: 'long' });
const dayOf = (t) => new Date(t * 1000).toDateString();
function dayLabel(t) {
  const d = dayOf(t);
  if (d === new Date().toDateString()) return 'Today';
  if (d === new Date(Date.now() - 86400000).toDateString()) return 'Yesterday';
  return DAY.format(t * 1000);
}
const GROUP = 5 * 60;  // a person's messages this close together are drawn as one group

// The timeline's rows: a divider where a day begins, the "new" line, and
// each message, under the one before without its name when the same person
// said it a moment later (the same day, no line between).
function rows(items, firstNew, props) {
  const out = [];
  let prev = null;
  const newest = items.findLast((ev) => ev.pubkey === props.me)?.id;  // the one whose receipt always shows
  for (const ev of items) {
    const newDay = !prev || dayOf(prev.created_at) !== dayOf(ev.created_at);
    if (newDay) out.push(<h2 class="day" key={'day' + ev.created_at}><span>{dayLabel(ev.created_at)}</span></h2>);
    if (ev.id === firstNew) out.push(<p class="new-line" id="new-messages" key="new">New</p>);
    const cont = !newDay && ev.id !== firstNew && prev.pubkey === ev.pubkey && ev.created_at - prev.created_at < GROUP &&
      !ev.tags.some((t) => t[0] === 'buzz:workflow');
    out.push(<Message key={ev.id} ev={ev} cont={cont} newest={ev.id === newest} {...props} />);
    prev = ev;
  }
  return out;
}

// "@al" at the end of the text: the members whose name starts with "al".
function suggestions(text, members, me, label) {
  const m = /(?:^|\s)@([\w.-]*)$/.exec(text);
  if (!m) return [];
  const q = m[1].toLowerCase();
  return members.filter((x) => x.pubkey !== me && label(x).toLowerCase().startsWith(q)).slice(0, 6);
}

// A draft per channel (and thread), kept in this browser until sent; the
// message at the top of a channel's view when the reader scrolled up.
const placeKey = (id) => 'buzz.place.' + id;
const draftKey = (id) => 'buzz.draft.' + id;

function Composer({ placeholder, onSend, onTyping, api, onError, id, members, me, disabled, draft }) {
  const people = usePeople();
  const label = (m) => people.name(m.pubkey).replace(/\s+/g, '_');
  const [text, setTextNow] = useState(() => (draft && localStorage.getItem(draftKey(draft))) || '');
  const setText = (t) => setTextNow((prev) => {
    const next = typeof t === 'function' ? t(prev) : t;
    if (draft) next ? localStorage.setItem(draftKey(draft), next) : localStorage.removeItem(draftKey(draft));
    return next;
  });
  const [busy, setBusy] = useState(0);  // messages on their way
  const [preview, setPreview] = useState(null);
  const file = useRef(null);
  const mentioned = useRef(new Map());  // "@label" -> pubkey, for the p tags
  // The suggestions (people after @, emoji after :): ↑/↓ choose, Tab or
  // Enter take, Esc puts them away until the text changes.
  const [choice, setChoice] = useState(0);
  const [dismissed, setDismissed] = useState(null);
  const mentions = dismissed === text ? [] : suggestions(text, members, me, label);
  const emoji = dismissed === text || mentions.length ? [] : emojiSuggestions(text);
  const options = mentions.length ? mentions : emoji;
  const chosen = Math.min(choice, options.length - 1);
  const pick = (m) => {
    if (Array.isArray(m)) setText(text.replace(/:[a-z0-9_+-]*$/i, m[1] + ' '));
    else {
      setText(text.replace(/@[\w.-]*$/, '@' + label(m) + ' '));
      mentioned.current.set('@' + label(m), m.pubkey);
    }
    document.getElementById(id)?.focus();
  };
  const insert = (e) => {
    const box = document.getElementById(id);
    const at = box?.selectionStart ?? text.length;
    setText(text.slice(0, at) + e + text.slice(box?.selectionEnd ?? at));
    setTimeout(() => { box?.focus(); box?.setSelectionRange(at + e.length, at + e.length); }, 0);
  };
  // The composer empties at once, so what is typed while this one is on its
  // way is kept (and Enter may send it too); a refusal puts text and image back.
  const send = async () => {
    if (!text.trim() && !preview) return;
    const sending = { text, preview, mentioned: new Map(mentioned.current) };
    setText('');
    setPreview(null);
    mentioned.current.clear();
    setBusy((n) => n + 1);
    try {
      let content = sending.text.trim();
      const tags = [];
      for (const [name, pubkey] of sending.mentioned) if (content.includes(name)) tags.push(['p', pubkey]);
      tags.push(...emojiTags(content));
      if (sending.preview) {
        const d = await api.upload(sending.preview.file);
        content = (content ? content + '\n' : '') + d.url;
        // NIP-92, checked by the relay against the upload (docs/reference/media.md §8).
        const extra = ['dim', 'blurhash', 'thumb'].filter((k) => d[k]).map((k) => `${k} ${d[k]}`);
        const filename = sending.preview.file.name.replace(/[\/\\\x00-\x1f\x7f]/g, '_').slice(0, 255);
        if (filename) extra.push('filename ' + filename);
        tags.push(['imeta', 'url ' + d.url, 'm ' + d.type, 'x ' + d.sha256, 'size ' + d.size, ...extra]);
      }
      await onSend(content, tags);
      if (sending.preview) URL.revokeObjectURL(sending.preview.url);
    } catch (e) {
      setText((t) => (t ? sending.text + '\n' + t : sending.text));
      setPreview((p) => p ?? sending.preview);
      for (const [name, pubkey] of sending.mentioned) mentioned.current.set(name, pubkey);
      onError(e.message);
    }
    setBusy((n) => n - 1);
  };
  const attach = (e) => {
    const f = e.target.files[0];
    if (f) setPreview({ file: f, url: URL.createObjectURL(f) });
    e.target.value = '';
  };
  return (
    <form class="composer" onSubmit={(e) => { e.preventDefault(); send(); }}>
      {mentions.length > 0 && (
        <ul class="mentions" role="listbox" aria-label="mention">
          {mentions.map((m, i) => <li key={m.pubkey}><button type="button" role="option" aria-selected={i === chosen} class={i === chosen ? 'chosen' : ''}
            onClick={() => pick(m)}>@{label(m)}</button></li>)}
        </ul>
      )}
      {emoji.length > 0 && (
        <ul class="mentions emoji-options" role="listbox" aria-label="emoji">
          {emoji.map((m, i) => <li key={m[0]}><button type="button" role="option" aria-selected={i === chosen} class={i === chosen ? 'chosen' : ''}
            onClick={() => pick(m)}>{m[2] ? <CustomEmoji code={m[0]} path={m[2]} /> : m[1]} :{m[0]}:</button></li>)}
        </ul>
      )}
      {preview && <div class="preview">
        {preview.file.type.startsWith('image/') ? <img src={preview.url} alt="to upload" />
          : <span class="file-card">📄 {preview.file.name} <small>{preview.file.type || 'file'} · {bytes(preview.file.size)}</small></span>}
        <button type="button" aria-label="remove the attachment" onClick={() => setPreview(null)}>✕</button></div>}
      <textarea id={id} rows="1" dir="auto" value={text} placeholder={placeholder} aria-label={placeholder} disabled={disabled}
        onInput={(e) => { setText(e.target.value); setChoice(0); onTyping?.(); }}
        onKeyDown={(e) => {
          const n = options.length;
          if (n && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) { e.preventDefault(); setChoice((chosen + (e.key === 'ArrowDown' ? 1 : n - 1)) % n); }
          else if (n && (e.key === 'Tab' || e.key === 'Enter')) { e.preventDefault(); pick(options[chosen]); }
          else if (n && e.key === 'Escape') { e.preventDefault(); setDismissed(text); }
          else if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); send(); }
        }} />
      <input type="file" ref={file} onChange={attach} hidden class="file" />
      <EmojiButton class="emoji-open" label="insert an emoji" onPick={insert} />
      <button type="button" class="attach" aria-label="attach a file" disabled={disabled} onClick={() => file.current.click()}>📎</button>
      <button type="submit" disabled={(busy > 0 && !!preview) || disabled}>Send</button>
    </form>
  );
}

// My messages are dated a second after my previous one at least, so a burst
// keeps its order for everyone, on reload too (the relay returns one
// second's messages by id); and after the newest one I have seen in the
// channel, so a reply never shows above what it answers.
let lastSent = 0;
const sendingAt = (seen = 0) => (lastSent = Math.max(Math.floor(Date.now() / 1000), lastSent + 1, seen + 1));
const newestIn = (state) => { let t = 0; for (const ev of state.messages.values()) t = Math.max(t, ev.created_at); return t; };

export function ChannelView({ channel, starred, muted, onStar, onMute, readUntil, relay, outbox, api, me, onError, onChanged, onDm, onOpen, onHidden, call, onJoin }) {
  const people = usePeople();
  useTeamEmoji();  // reactions with a team emoji are drawn again when the palette changes
  const state = useRef(emptyChannel());
  const [version, setVersion] = useState(0);
  const [loaded, setLoaded] = useState(false);
  const [openThread, setOpenThread] = useState(null);
  const [typing, setTyping] = useState({});
  const [pane, setPane] = useState(null);  // 'members' | 'canvas' | 'pins' | 'recordings' | null, beside the messages
  const [showSettings, setShowSettings] = useState(false);
  const [gone, setGone] = useState('');    // the relay closed the subscription: access revoked
  const [history, setHistory] = useState({ more: false, loading: false });
  const huddles = useHuddle(channel, relay);
  const huddle = huddles.active;
  const recordings = useRecordings(relay, huddles);
  const started = useRef(performance.now());
  const historyAt = useRef(0);              // when the stored history had arrived (EOSE)
  const list = useRef(null);
  const lastTyping = useRef(0);
  const oldest = useRef(Infinity);          // created_at of the oldest event held
  const stick = useRef(true);               // the reader is at the bottom: follow new messages
  const restore = useRef(null);             // distance from the bottom to keep after older ones arrive
  const firstNew = useRef(null);            // the first message said since I last read here (the "new" line), fixed at EOSE

  // A layout effect, so the REQ goes out before the empty view is first
  // painted, not a frame later. History is folded in once at EOSE (one render
  // for 500 messages); live events after it are batched per animation frame.
  useLayoutEffect(() => {
    let batch = [];
    let scheduled = false;
    let live = false;
    let stored = 0;
    let ended = false;
    const flush = () => { scheduled = false; apply(state.current, batch); batch = []; setVersion((v) => v + 1); };
    const unsub = relay.subscribe(
      [{ kinds: KINDS, '#h': [channel.id], limit: PAGE }, { kinds: [20002], '#h': [channel.id] }],
      (ev) => {
        if (ev.kind === 20002) {
          if (ev.pubkey !== me) setTyping((t) => ({ ...t, [ev.pubkey]: Date.now() }));
          return;
        }
        if (!live) { stored++; oldest.current = Math.min(oldest.current, ev.created_at); }
        if (live && ev.pubkey === me && ev.kind === 9) setTimeout(() => askReceipts().catch(() => {}), 1500);
        batch.push(ev);
        if (live && !scheduled) { scheduled = true; requestAnimationFrame(flush); }
      },
      // A channel open at start (reopened on reload) is drawn after the
      // workspace's first frame, the sidebar and its counts, not before it.
      () => firstRender.then(() => {
        if (ended) return;
        live = true;
        historyAt.current = performance.now();
        flush();
        // Only for a channel read before: in one never opened, everything is new.
        if (readUntil) firstNew.current = timeline(state.current).find((ev) => ev.created_at > readUntil && ev.pubkey !== me)?.id ?? null;
        setLoaded(true);
        setHistory({ more: stored >= PAGE, loading: false });
      }),
      (reason) => { setGone(reason || 'closed'); onChanged(); },
    );
    // The channel's group state changing (members, roles) re-reads its members;
    // the channel list follows the same 39000 on its own (workspace.jsx).
    const unsubState = relay.subscribe([{ kinds: [39000, 39002], '#h': [channel.id], limit: 0 }], () => {
      loadMembers().catch(() => {});
    });
    // Typing older than 5 s goes; the same object when none did, so an idle
    // channel is not drawn again every second.
    const t = setInterval(() => setTyping((t) => {
      const kept = Object.entries(t).filter(([, at]) => Date.now() - at < 5000);
      return kept.length === Object.keys(t).length ? t : Object.fromEntries(kept);
    }), 1000);
    return () => { ended = true; unsub(); unsubState(); clearInterval(t); };
  }, [channel.id]);

  // Receipts of my messages (kind 28990, docs/reference/kinds.md §4): the newest
  // RECEIPTS of mine, asked once the history is in, a moment after I say
  // something, and every 15 s while the page is shown.
  const [receipts, setReceipts] = useState(new Map());
  const askReceipts = async () => {
    const mine = timeline(state.current).filter((ev) => ev.pubkey === me && ev.kind === 9).slice(-RECEIPTS).map((ev) => ev.id);
    if (!mine.length) return;
    const got = await relay.query([{ kinds: [28990], '#e': mine }]);
    setReceipts(new Map(got.map((r) => [r.tags.find((t) => t[0] === 'e')?.[1], JSON.parse(r.content)])));
  };
  useEffect(() => {
    if (!loaded) return;
    askReceipts().catch(() => {});
    const t = setInterval(() => { if (!document.hidden) askReceipts().catch(() => {}); }, 15000);
    return () => clearInterval(t);
  }, [loaded, channel.id]);

  // Older history: the PAGE events before the oldest held (until is inclusive,
  // so the boundary second comes again; apply() ignores what it has).
  const loadEarlier = async () => {
    if (history.loading || !history.more) return;
    setHistory({ more: true, loading: true });
    const events = await relay.query([{ kinds: KINDS, '#h': [channel.id], until: oldest.current, limit: PAGE }]);
    const known = state.current.messages.size;
    for (const ev of events) oldest.current = Math.min(oldest.current, ev.created_at);
    const el = list.current;
    if (el) restore.current = el.scrollHeight - el.scrollTop;
    apply(state.current, events);
    setHistory({ more: events.length >= PAGE && state.current.messages.size > known, loading: false });
    setVersion((v) => v + 1);
  };

  // Members: the member pane, roles, mention suggestions.
  const [members, setMembers] = useState([]);
  const loadMembers = async () => {
    const r = await api.get(`/api/channels/${channel.id}/members`);
    setMembers(r.members);
    people.want(r.members.map((m) => m.pubkey));
  };
  useEffect(() => {
    firstRender.then(loadMembers).catch((e) => onError(e.message));  // a NIP-98 signature and a request, off the start
    const t = setInterval(() => loadMembers().catch(() => {}), 30000);
    return () => clearInterval(t);
  }, [channel.id]);

  const items = useMemo(() => timeline(state.current), [version]);
  const [, setOutboxVersion] = useState(0);
  useEffect(() => {
    const l = () => setOutboxVersion((v) => v + 1);
    outbox.listeners.add(l);
    return () => outbox.listeners.delete(l);
  }, [outbox]);
  const waiting = outbox.of(channel.id).filter((i) => !state.current.messages.has(i.id));
  const waitingIn = (root) => waiting.filter((i) => threadRoot(i.event) === root);
  useEffect(() => { people.want(new Set([...state.current.messages.values()].map((ev) => ev.pubkey))); }, [version]);

  // First render after the history arrived: recorded for docs/performance.md.
  useEffect(() => {
    if (!loaded) return;
    requestAnimationFrame(() => {
      window.__buzzFirstRender = { channel: channel.id, messages: items.length, ms: performance.now() - started.current, at: performance.now(),
        history: historyAt.current - started.current };
    });
  }, [loaded]);

  // Follow new messages while the reader is at the bottom; keep the place
  // when older ones are put above.
  useLayoutEffect(() => {
    const el = list.current;
    if (!el) return;
    if (restore.current !== null) { el.scrollTop = el.scrollHeight - restore.current; restore.current = null; }
    else if (stick.current) el.scrollTop = el.scrollHeight;
  }, [items.length, loaded, waiting.length]);
  // Messages off screen have an estimated height until drawn (app.css), so the
  // bottom moves as they are laid out: a reader at the bottom stays there.
  const inner = useRef(null);
  useEffect(() => {
    if (!inner.current) return;
    const ro = new ResizeObserver(() => {
      const el = list.current;
      if (el && held.current) alignTo(held.current);
      else if (el && stick.current && restore.current === null) el.scrollTop = el.scrollHeight;
    });
    ro.observe(inner.current);
    return () => ro.disconnect();
  }, [gone]);
  const onScroll = (e) => {
    const el = e.currentTarget;
    stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 60;
    if (el.scrollTop < 40 && loaded) loadEarlier();
    if (!placing.current) placing.current = setTimeout(keepPlace, 250);
  };

  // The reading place survives a reload: the message at the top of the view
  // (none when at the bottom, where a channel opens anyway).
  const placing = useRef(null);
  const keepPlace = () => {
    placing.current = null;
    const el = list.current;
    if (!el) return;
    if (stick.current) localStorage.removeItem(placeKey(channel.id));
    else {
      const top = el.getBoundingClientRect().top;
      const first = [...el.querySelectorAll('.list > article[data-id]')].find((m) => m.getBoundingClientRect().bottom > top + 4);
      if (first) localStorage.setItem(placeKey(channel.id), first.dataset.id);
    }
    const line = document.getElementById('new-messages');
    setJump(!!line && line.getBoundingClientRect().bottom < el.getBoundingClientRect().top);
  };
  useEffect(() => () => clearTimeout(placing.current), []);
  const [jump, setJump] = useState(false);
  const jumpToNew = () => {
    document.getElementById('new-messages')?.scrollIntoView({ block: 'start' });
    stick.current = false;
    setJump(false);
    setTimeout(() => document.querySelector('#new-messages + .msg')?.focus({ preventScroll: true }), 0);
  };
  // Once the history is drawn: back to the kept place, else at the bottom
  // (where the channel opens), offering a jump to the first unread above.
  useLayoutEffect(() => {
    if (!loaded) return;
    const el = list.current;
    const id = localStorage.getItem(placeKey(channel.id));
    if (id && alignTo(id)) {
      // Kept there while the messages around it get their real heights,
      // until the reader scrolls.
      stick.current = false;
      held.current = id;
      const unpin = () => { held.current = null; };
      for (const e of ['wheel', 'touchstart', 'keydown', 'mousedown']) el.addEventListener(e, unpin, { once: true, passive: true });
      setTimeout(unpin, 3000);
    }
    requestAnimationFrame(keepPlace);
  }, [loaded]);
  const held = useRef(null);  // the message a reload put back at the top, kept there until the reader scrolls
  const alignTo = (id) => {
    const el = list.current;
    const at = el?.querySelector(`article[data-id="${CSS.escape(id)}"]`);
    if (at) el.scrollTop += at.getBoundingClientRect().top - el.getBoundingClientRect().top;
    return !!at;
  };

  // Into the outbox: shown as "sending…" until the relay's OK (outbox.js).
  const send = async (content, tags, root) => {
    const all = [['h', channel.id], ...tags];
    if (root) all.push(['e', root.id, '', 'reply'], ['p', root.pubkey]);
    stick.current = true;
    await outbox.send({ kind: 9, content, tags: all, created_at: sendingAt(newestIn(state.current)) }, channel.id);
  };
  // A reaction taken back and given again within the same second would be
  // the same event, id and all, which the relay already holds as deleted: the
  // second one is dated a second after the first.
  const reacted = useRef(new Map());  // "event id emoji" -> created_at of my last reaction there
  const react = async (ev, emoji) => {
    const mine = state.current.reactions.get(ev.id)?.get(emoji)?.get(me);
    const key = ev.id + ' ' + emoji;
    const created_at = Math.max(Math.floor(Date.now() / 1000), (reacted.current.get(key) ?? 0) + 1);
    if (!mine) reacted.current.set(key, created_at);
    const r = mine
      ? await relay.publish({ kind: 5, tags: [['e', mine], ['h', channel.id]] })
      : await relay.publish({ kind: 7, created_at, content: emoji, tags: [['h', channel.id], ['p', ev.pubkey], ['e', ev.id], ...emojiTags(emoji)] });
    if (!r.ok) onError(r.message);
  };
  const edit = async (ev, text) => {
    const r = await relay.publish({ kind: 40003, content: text, tags: [['h', channel.id], ['e', ev.id]] });
    if (!r.ok) onError(r.message);
  };
  const del = async (ev) => {
    const r = await relay.publish({ kind: 5, tags: [['e', ev.id], ['h', channel.id]] });
    if (!r.ok) onError(r.message);
  };
  // Pinning (kind 40004, docs/reference/kinds.md); unpinning deletes my pin.
  const pin = async (ev, mine) => {
    const r = mine
      ? await relay.publish({ kind: 5, tags: [['e', mine], ['h', channel.id]] })
      : await relay.publish({ kind: 40004, tags: [['h', channel.id], ['e', ev.id]] });
    if (!r.ok) onError(r.message);
  };
  const pins = useMemo(() => pinned(state.current), [version]);
  const pinsOf = useMemo(() => new Map(pins.map((p) => [p.ev.id, p])), [pins]);
  const goTo = (id) => {
    setPane(null);
    setTimeout(() => {
      const el = list.current?.querySelector(`article[data-id="${CSS.escape(id)}"]`);
      if (!el) return;
      stick.current = false;
      el.scrollIntoView({ block: 'center' });
      el.focus({ preventScroll: true });
    }, 0);
  };
  const typingNow = () => {
    if (Date.now() - lastTyping.current < 3000) return;
    lastTyping.current = Date.now();
    relay.publish({ kind: 20002, tags: [['h', channel.id]] });
  };

  // Esc closes the newest pane (thread, then canvas or members, then settings)
  // and gives the keyboard back to the composer. A layout effect: one that ran
  // after paint left a pane on screen that an Esc pressed at once did not see.
  useLayoutEffect(() => {
    const key = (e) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      if (openThread) setOpenThread(null);
      else if (pane) setPane(null);
      else if (showSettings) setShowSettings(false);
      else return;
      e.preventDefault();
      setTimeout(() => document.getElementById('message-input')?.focus(), 0);
    };
    addEventListener('keydown', key);
    return () => removeEventListener('keydown', key);
  });

  const role = members.find((m) => m.pubkey === me)?.role;
  const dm = channel.channel_type === 'dm';
  const archived = !!channel.archived_at;
  const title = dm
    ? (channel.participant_pubkeys || []).filter((pk) => pk !== me).map((pk) => people.name(pk)).join(', ') || (channel.participants || []).join(', ')
    : (channel.visibility === 'private' ? '🔒 ' : '# ') + channel.name;
  const toggle = (name) => setPane(pane === name ? null : name);
  // The emoji picker for a reaction: one, beside the message's button (a
  // message is drawn contained, so it could not show outside it).
  const [picking, setPicking] = useState(null);  // {ev, style}
  const pickerAt = (button) => {
    const r = button.getBoundingClientRect();
    const below = r.bottom + 290 < innerHeight;
    return { position: 'fixed', right: Math.max(8, innerWidth - r.right) + 'px', ...(below ? { top: r.bottom + 4 + 'px', bottom: 'auto' } : { bottom: innerHeight - r.top + 4 + 'px', top: 'auto' }) };
  };
  const props = { state: state.current, me, people, api, onReact: react, onPickReaction: (ev, button) => setPicking({ ev, style: pickerAt(button) }), onPin: pin, pins: pinsOf, receipts, onReply: setOpenThread, onEdit: edit, onDelete: del,
    onRetry: (id) => outbox.retry(id), onDiscard: (id) => outbox.discard(id) };
  const pendingOf = (items) => items.map((i) => <Message key={i.id} ev={i.event} pending={i} {...props} />);
  const typers = Object.keys(typing);
  if (gone) return <div class="channel"><p class="empty" role="alert" id="channel-gone">You no longer have access to this channel ({gone}).</p></div>;
  return (
    <div class="channel">
      <header class="channel-head">
        <h1>{title}</h1>
        <button id="star-channel" class="icon" aria-pressed={!!starred} aria-label="star" title={starred ? 'Starred: listed first' : 'Star: list it first'} onClick={onStar}>{starred ? '★' : '☆'}</button>
        <button id="mute-channel" class="icon" aria-pressed={!!muted} aria-label="mute" title={muted ? 'Muted: no notifications, not in the tab’s count' : 'Mute: no notifications'} onClick={onMute}>{muted ? '🔕' : '🔔'}</button>
        {archived && <span class="archived">archived</span>}
        {channel.topic && <span class="topic">{channel.topic}</span>}
        <span>
          {!archived && !call && <HuddleButton active={huddle} onJoin={() => onJoin(huddle)} />}
          {!dm && <button id="toggle-settings" aria-expanded={showSettings} onClick={() => setShowSettings(!showSettings)}>Settings</button>}
          {!dm && <button id="toggle-canvas" aria-expanded={pane === 'canvas'} onClick={() => toggle('canvas')}>Canvas</button>}
          {dm && <button id="hide-dm" title="Hide this conversation until someone writes in it" onClick={() =>
            api.post(`/api/dms/${channel.id}/hide`).then(onHidden, (e) => onError(e.message))}>Hide</button>}
          <button id="toggle-pins" aria-expanded={pane === 'pins'} title="Pinned messages"
            onClick={() => toggle('pins')}><span aria-hidden="true">📌 </span>Pins {pins.length}</button>
          {recordings.length > 0 && <button id="toggle-recordings" aria-expanded={pane === 'recordings'} title="Recordings of this channel's huddles"
            onClick={() => toggle('recordings')}><span aria-hidden="true">⏺ </span>Recordings {recordings.length}</button>}
          <button id="toggle-members" aria-expanded={pane === 'members'} onClick={() => toggle('members')}>Members</button>
        </span>
      </header>
      {showSettings && <Settings channel={channel} role={role} relay={relay} onError={onError}
        onDone={() => { setShowSettings(false); onChanged(); }} />}
      <div class="body">
        <section class="messages" ref={list} aria-live="polite" aria-busy={!loaded} onScroll={onScroll}>
          {jump && <button class="jump" id="jump-unread" onClick={jumpToNew}>↑ Jump to the first unread</button>}
          <div class="list" ref={inner}>
          {history.more && <button class="earlier" id="load-earlier" disabled={history.loading} onClick={loadEarlier}>
            {history.loading ? 'Loading…' : 'Load earlier messages'}</button>}
          {loaded && !history.more && items.length > 0 && <p class="start">The beginning of {dm ? 'this conversation' : channel.name}.</p>}
          {rows(items, firstNew.current, props)}
          {pendingOf(waitingIn(undefined))}
          {loaded && !items.length && !waiting.length && <p class="empty">No messages yet.</p>}
          </div>
        </section>
        {openThread && (
          <aside class="thread" aria-label="thread">
            <header><h2>Thread</h2><button aria-label="close thread" onClick={() => setOpenThread(null)}>✕</button></header>
            <Message ev={openThread} {...props} inThread />
            {thread(state.current, openThread.id).map((ev) => <Message key={ev.id} ev={ev} {...props} inThread />)}
            {pendingOf(waitingIn(openThread.id))}
            <Composer key={openThread.id} id="thread-input" placeholder="Reply in thread" draft={channel.id + '.' + openThread.id} api={api} onError={onError} members={members} me={me} disabled={archived}
              onSend={(c, tags) => send(c, tags, openThread)} />
          </aside>
        )}
        {pane === 'members' && <Members channel={channel} members={members} me={me} relay={relay} api={api} onError={onError} onDm={onDm} onOpen={onOpen}
          onChange={() => loadMembers().catch((e) => onError(e.message))} onClose={() => setPane(null)} />}
        {pane === 'recordings' && <RecordingsPane recordings={recordings} api={api} onClose={() => setPane(null)} />}
        {pane === 'pins' && (
          <aside class="pins" aria-label="pinned messages">
            <header><h2>Pinned ({pins.length})</h2><button aria-label="close pinned messages" onClick={() => setPane(null)}>✕</button></header>
            {!pins.length && <p class="empty">Nothing pinned yet: a message's Pin button puts it here.</p>}
            <ul>{pins.map(({ ev }) => (
              <li key={ev.id} data-id={ev.id}>
                <strong>{people.name(ev.pubkey)}</strong> <time>{CLOCK.format(ev.created_at * 1000)}</time>
                <Content text={state.current.edits.get(ev.id)?.content ?? ev.content} tags={ev.tags} />
                <button class="go-to" onClick={() => goTo(ev.id)}>Show in the channel</button>
              </li>))}</ul>
          </aside>
        )}
        {pane === 'canvas' && <Canvas channel={channel} relay={relay} me={me} readOnly={archived} onError={onError} onClose={() => setPane(null)} />}
      </div>
      {picking && <EmojiPicker style={picking.style} onClose={() => setPicking(null)}
        onPick={(e) => { setPicking(null); react(picking.ev, e); }} />}
      <p class="typing">{typers.length ? `${typers.map((pk) => people.name(pk)).join(', ')} typing…` : ''}</p>
      <Composer id="message-input" draft={channel.id} placeholder={archived ? 'This channel is archived' : 'Message ' + (dm ? title : channel.name)} api={api}
        onError={onError} members={members} me={me} disabled={archived} onSend={(c, tags) => send(c, tags)} onTyping={typingNow} />
    </div>
  );
}
