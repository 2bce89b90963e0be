// Emoji: a picker (a button opening a grid with a search) and `:shortcode:`
// completion in the composer. Reactions take any emoji from it.
import { useEffect, useRef, useState } from 'preact/hooks';

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

// ":thu" at the end of the text: the emoji whose name starts with "thu".
export function emojiSuggestions(text) {
  const m = /(?:^|\s):([a-z0-9_+-]{2,})$/.exec(text);
  if (!m) return [];
  return EMOJI.filter(([name]) => name.startsWith(m[1])).slice(0, 8);
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
  const shown = EMOJI.filter(([name], i, all) => name.includes(q.toLowerCase()) && all.findIndex(([, e]) => e === all[i][1]) === i);
  return (
    <div class="emoji-picker" role="dialog" aria-label="emoji" ref={root} style={style}
      onKeyDown={(e) => { if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); onClose(); } }}>
      <input type="search" class="emoji-search" aria-label="search emoji" placeholder="search emoji" value={q}
        onInput={(e) => setQ(e.target.value)}
        onKeyDown={(e) => { if (e.key === 'Enter') { e.preventDefault(); if (shown[0]) onPick(shown[0][1]); } }} />
      <div class="emoji-grid">
        {shown.map(([name, e]) => <button type="button" class="emoji" key={name} title={':' + name + ':'} aria-label={name.replace(/_/g, ' ')}
          onClick={() => onPick(e)}>{e}</button>)}
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
