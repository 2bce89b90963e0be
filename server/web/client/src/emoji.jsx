// Emoji: a picker (a button opening a grid with a search) and `:shortcode:`
// completion in the composer. Reactions take any emoji from it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ours } from './api.js';

// name -> emoji; the common ones people type by name.
export const EMOJI = Object.entries({
  smile: '😄', grin: '😁', joy: '😂', rofl: '🤣', slightly_smiling_face: '🙂', wink: '😉', blush: '😊', heart_eyes: '😍',
  kissing_heart: '😘', yum: '😋', stuck_out_tongue: '😛', thinking: '🤔', neutral_face: '😐', expressionless: '😑',
  roll_eyes: '🙄', smirk: '😏', relieved: '😌', sleeping: '😴', sunglasses: '😎', nerd: '🤓', confused: '😕', worried: '😟',
  cry: '😢', sob: '😭', scream: '😱', angry: '😠', rage: '😡', exploding_head: '🤯', flushed: '😳', hugs: '🤗',
  shushing: '🤫', zipper_mouth: '🤐', upside_down: '🙃', melting: '🫠', partying: '🥳', pleading: '🥺', skull: '💀',
  ghost: '👻', robot: '🤖', poop: '💩', clown: '🤡', see_no_evil: '🙈', wave: '👋', ok_hand: '👌', v: '✌️',
  crossed_fingers: '🤞', '+1': '👍', thumbsup: '👍', '-1': '👎', thumbsdown: '👎', clap: '👏', raised_hands: '🙌',
  pray: '🙏', muscle: '💪', point_up: '☝️', point_right: '👉', eyes: '👀', brain: '🧠', handshake: '🤝', writing_hand: '✍️',
  heart: '❤️', orange_heart: '🧡', yellow_heart: '💛', green_heart: '💚', blue_heart: '💙', purple_heart: '💜',
  broken_heart: '💔', sparkles: '✨', star: '⭐', fire: '🔥', boom: '💥', zap: '⚡', tada: '🎉', confetti_ball: '🎊',
  balloon: '🎈', gift: '🎁', trophy: '🏆', medal: '🏅', rocket: '🚀', airplane: '✈️', car: '🚗', bike: '🚲',
  sun: '☀️', cloud: '☁️', umbrella: '☂️', snowflake: '❄️', rainbow: '🌈', moon: '🌙', earth: '🌍', seedling: '🌱',
  tree: '🌳', rose: '🌹', cactus: '🌵', apple: '🍎', pizza: '🍕', burger: '🍔', taco: '🌮', cake: '🍰', cookie: '🍪',
  coffee: '☕', tea: '🍵', beer: '🍺', wine: '🍷', dog: '🐶', cat: '🐱', fox: '🦊', bee: '🐝', bug: '🐛', unicorn: '🦄',
  penguin: '🐧', turtle: '🐢', octopus: '🐙', computer: '💻', keyboard: '⌨️', phone: '📱', email: '📧', memo: '📝',
  calendar: '📅', pushpin: '📌', paperclip: '📎', lock: '🔒', key: '🔑', bulb: '💡', wrench: '🔧', hammer: '🔨',
  gear: '⚙️', chart: '📈', money: '💰', bell: '🔔', mute: '🔇', warning: '⚠️', no_entry: '⛔', x: '❌',
  white_check_mark: '✅', heavy_check_mark: '✔️', question: '❓', exclamation: '❗', hundred: '💯', hourglass: '⏳',
  stopwatch: '⏱️', link: '🔗', ship: '🚢', construction: '🚧', checkered_flag: '🏁', dart: '🎯', game: '🎮', music: '🎵',
});

// The team's custom emoji (NIP-30): every member's emoji set (kind 30030, d
// "buzz:custom-emoji", docs/reference/kinds.md), joined; a shortcode two
// people both use is the newest set's. Only pictures this relay serves are
// kept: the page's CSP shows no other. Entries are [name, ':name:', path].
const SET = 'buzz:custom-emoji';
const CODE = /^[a-zA-Z0-9_+-]+$/;
const sets = new Map();  // pubkey -> newest 30030 of theirs
const teamListeners = new Set();
export const teamEmoji = new Map();  // shortcode -> path
export function watchTeamEmoji(relay) {
  return relay.subscribe([{ kinds: [30030], '#d': [SET] }], (ev) => {
    if ((sets.get(ev.pubkey)?.created_at ?? -1) >= ev.created_at) return;
    sets.set(ev.pubkey, ev);
    teamEmoji.clear();
    for (const set of [...sets.values()].sort((a, b) => a.created_at - b.created_at)) {
      for (const [code, path] of emojiOf(set.tags)) teamEmoji.set(code, path);
    }
    for (const l of teamListeners) l();
  });
}
export function useTeamEmoji() {
  const [, setVersion] = useState(0);
  useEffect(() => {
    const l = () => setVersion((v) => v + 1);
    teamListeners.add(l);
    return () => teamListeners.delete(l);
  }, []);
  return teamEmoji;
}
// Adds a shortcode to my own set (a new 30030 with every emoji tag of the old one).
export async function addTeamEmoji(relay, me, code, url) {
  if (!CODE.test(code)) throw new Error('A shortcode is letters, digits, _, + and - only.');
  const mine = (sets.get(me)?.tags || []).filter((t) => t[0] === 'emoji' && t[1] !== code);
  const r = await relay.publish({ kind: 30030, content: '', tags: [['d', SET], ['title', 'Team emoji'], ...mine, ['emoji', code, url]] });
  if (!r.ok) throw new Error(r.message);
}
// The emoji tags a text's custom :shortcodes: need (NIP-30), as absolute URLs.
export function emojiTags(text) {
  const codes = new Set([...text.matchAll(/:([a-zA-Z0-9_+-]+):/g)].map((m) => m[1]).filter((c) => teamEmoji.has(c)));
  return [...codes].map((c) => ['emoji', c, location.origin + teamEmoji.get(c)]);
}
// An event's own emoji tags (NIP-30): shortcode -> a path this relay serves.
export function emojiOf(tags) {
  const out = new Map();
  for (const t of tags || []) if (t[0] === 'emoji' && CODE.test(t[1] || '') && ours(t[2])) out.set(t[1], ours(t[2]));
  return out;
}
export const CustomEmoji = ({ code, path }) => <img class="custom-emoji" src={path} alt={`:${code}:`} title={`:${code}:`} />;
// A reaction's content: an emoji, or a team emoji's :shortcode: drawn as its picture.
export function ReactionEmoji({ emoji }) {
  const code = /^:([a-zA-Z0-9_+-]+):$/.exec(emoji)?.[1];
  const path = code && teamEmoji.get(code);
  return path ? <CustomEmoji code={code} path={path} /> : emoji;
}

// ":thu" at the end of the text: the emoji whose name starts with "thu", the
// team's first.
export function emojiSuggestions(text) {
  const m = /(?:^|\s):([a-z0-9_+-]{2,})$/i.exec(text);
  if (!m) return [];
  const team = [...teamEmoji].filter(([name]) => name.startsWith(m[1])).map(([name, path]) => [name, `:${name}:`, path]);
  return [...team, ...EMOJI.filter(([name]) => name.startsWith(m[1].toLowerCase()))].slice(0, 8);
}

// The picker: a search and a grid; onPick gets the emoji, onClose on Esc or
// a click outside it. `style` places it (fixed, beside a message's button).
export function EmojiPicker({ onPick, onClose, style, keep }) {
  const [q, setQ] = useState('');
  const root = useRef(null);
  useEffect(() => {
    root.current?.querySelector('.emoji-search')?.focus();
    const away = (e) => { if (!root.current?.contains(e.target) && !keep?.current?.contains(e.target)) onClose(); };
    document.addEventListener('mousedown', away);
    return () => document.removeEventListener('mousedown', away);
  }, []);
  const team = useTeamEmoji();
  const shown = [...[...team].map(([name, path]) => [name, `:${name}:`, path]), ...EMOJI]
    .filter(([name], i, all) => name.toLowerCase().includes(q.toLowerCase()) && all.findIndex(([, e]) => e === all[i][1]) === i);
  return (
    <div class="emoji-picker" role="dialog" aria-label="emoji" ref={root} style={style}
      onKeyDown={(e) => { if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); onClose(); } }}>
      <input type="search" class="emoji-search" aria-label="search emoji" placeholder="search emoji" value={q}
        onInput={(e) => setQ(e.target.value)}
        onKeyDown={(e) => { if (e.key === 'Enter') { e.preventDefault(); if (shown[0]) onPick(shown[0][1]); } }} />
      <div class="emoji-grid">
        {shown.map(([name, e, path]) => <button type="button" class={path ? 'emoji team' : 'emoji'} key={e} title={':' + name + ':'} aria-label={name.replace(/_/g, ' ')}
          onClick={() => onPick(e)}>{path ? <CustomEmoji code={name} path={path} /> : e}</button>)}
      </div>
    </div>
  );
}

// A button opening the picker above it (the composer's).
export function EmojiButton({ label, onPick, class: cls = '' }) {
  const [open, setOpen] = useState(false);
  const root = useRef(null);
  return (
    <span class="emoji-picker-wrap" ref={root}>
      <button type="button" class={cls} aria-label={label} title={label} aria-haspopup="dialog" aria-expanded={open}
        onClick={() => setOpen(!open)}>☺</button>
      {open && <EmojiPicker keep={root} onClose={() => setOpen(false)} onPick={(e) => { setOpen(false); onPick(e); }} />}
    </span>
  );
}
