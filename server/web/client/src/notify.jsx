// What the reader keeps in this browser about channels (muted, starred), and
// telling them of what concerns them: the browser's notifications for
// mentions and DMs (permission asked only when they press the button), and
// the unread count in the tab's title and on its icon.
import { useEffect, useState } from 'preact/hooks';

// A set of channel ids kept in localStorage; every component using it hears a change.
const listeners = new Set();
const read = (name) => { try { return new Set(JSON.parse(localStorage.getItem('buzz.' + name) || '[]')); } catch { return new Set(); } };
export function toggleFlag(name, id) {
  const set = read(name);
  set.has(id) ? set.delete(id) : set.add(id);
  localStorage.setItem('buzz.' + name, JSON.stringify([...set]));
  for (const l of listeners) l();
}
export function useFlags(name) {
  const [set, setSet] = useState(() => read(name));
  useEffect(() => {
    const l = () => setSet(read(name));
    listeners.add(l);
    return () => listeners.delete(l);
  }, [name]);
  return set;
}

export const canNotify = () => typeof Notification !== 'undefined';

// A notification, when the reader allowed them; clicking it shows the page and calls onClick.
export function notify(title, body, tag, onClick) {
  if (!canNotify() || Notification.permission !== 'granted') return;
  try {
    const n = new Notification(title, { body: body.length > 140 ? body.slice(0, 139) + '…' : body, tag });
    n.onclick = () => { window.focus(); onClick?.(); n.close(); };
  } catch {}
}

// "Turn on notifications": only while the browser has not been answered.
export function NotifyButton() {
  const [asked, setAsked] = useState(canNotify() ? Notification.permission : 'denied');
  if (asked !== 'default') return null;
  return <button id="notify-on" title="Notifications for mentions and direct messages"
    onClick={() => Notification.requestPermission().then(setAsked, () => setAsked('denied'))}>🔔 Notify me</button>;
}

// The tab: "(3) Buzz" and a red dot on its icon while anything is unread.
const ICON = (dot) => 'data:image/svg+xml,' + encodeURIComponent(
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#3f0e40"/>` +
  `<text x="16" y="23" font-size="20" font-family="sans-serif" font-weight="700" fill="#fff" text-anchor="middle">B</text>` +
  (dot ? '<circle cx="25" cy="7" r="7" fill="#e01e5a"/>' : '') + '</svg>');
export function showUnread(count) {
  document.title = count > 0 ? `(${count}) Buzz` : 'Buzz';
  let link = document.querySelector('link[rel=icon]');
  if (!link) { link = document.createElement('link'); link.rel = 'icon'; document.head.appendChild(link); }
  const href = ICON(count > 0);
  if (link.getAttribute('href') !== href) link.setAttribute('href', href);
}
