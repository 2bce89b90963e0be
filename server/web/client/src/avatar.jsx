// A person's picture: the profile's `picture` when this relay serves it (the
// page's CSP loads images from here only; uploads are here), else their
// initial on a colour of their own. Beside a name, so hidden from screen readers.
const COLOURS = ['#1264a3', '#7c3085', '#a0302b', '#2d6a4f', '#6b4e16', '#3f51b5', '#8a3b12', '#00677f'];

export const ownPicture = (url) => {
  try { const u = new URL(url, location.href); return u.origin === location.origin ? u.pathname : null; } catch { return null; }
};

export function Avatar({ pubkey, people, workflow = false, size = 32 }) {
  const picture = !workflow && people.profile(pubkey).picture;
  const src = picture && ownPicture(picture);
  const style = { width: size + 'px', height: size + 'px' };
  if (src) return <img class="avatar" src={src} alt="" aria-hidden="true" style={style} loading="lazy" />;
  const name = workflow ? '⚙' : people.name(pubkey);
  const colour = COLOURS[parseInt(pubkey.slice(0, 2), 16) % COLOURS.length];
  return <span class="avatar" aria-hidden="true" style={{ ...style, background: colour, fontSize: size / 2 + 'px' }}>{[...name][0]?.toUpperCase()}</span>;
}
