// Light or dark: the system's choice (prefers-color-scheme, followed as it
// changes) unless the reader picked one, which is remembered in this browser.
// app.css colours html[data-theme=dark].
import { useState } from 'preact/hooks';

const KEY = 'buzz.theme';
const systemDark = matchMedia('(prefers-color-scheme: dark)');
export function applyTheme(theme = localStorage.getItem(KEY) || 'system') {
  document.documentElement.dataset.theme = theme === 'system' ? (systemDark.matches ? 'dark' : 'light') : theme;
}
systemDark.addEventListener('change', () => applyTheme());

export function ThemeSwitch() {
  const [theme, setTheme] = useState(localStorage.getItem(KEY) || 'system');
  const choose = (t) => {
    t === 'system' ? localStorage.removeItem(KEY) : localStorage.setItem(KEY, t);
    applyTheme(t);
    setTheme(t);
  };
  return (
    <p>
      <label for="theme">Appearance</label>{' '}
      <select id="theme" value={theme} onChange={(e) => choose(e.target.value)}>
        <option value="system">as the system</option>
        <option value="light">light</option>
        <option value="dark">dark</option>
      </select>
    </p>
  );
}
