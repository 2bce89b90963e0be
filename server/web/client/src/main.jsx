// Entry: sign in, then the workspace. See ../README.md for the layout.
import { render } from 'preact';
import { useState } from 'preact/hooks';
import { savedSigner, keySigner, extensionSigner } from './signer.js';
import { Workspace } from './workspace.jsx';

function SignIn({ onSigner }) {
  const [text, setText] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState('');
  const attempt = async (make) => {
    try { onSigner(await make(), name.trim()); } catch (e) { setError(e.message); }
  };
  return (
    <main class="signin">
      <h1>Buzz</h1>
      <p>Sign in with your Nostr key.</p>
      {window.nostr && <button id="signin-extension" onClick={() => attempt(extensionSigner)}>Use browser extension</button>}
      <form onSubmit={(e) => { e.preventDefault(); attempt(() => keySigner(text)); }}>
        <label for="nsec">Paste an nsec (kept in this browser only)</label>
        <input id="nsec" type="password" autocomplete="off" value={text} onInput={(e) => setText(e.target.value)} placeholder="nsec1…" />
        <label for="signin-name">Your name (optional; others see it)</label>
        <input id="signin-name" autocomplete="name" value={name} onInput={(e) => setName(e.target.value)} placeholder="Alice" />
        <button type="submit" id="signin-key">{text ? 'Sign in' : 'Create a new key'}</button>
      </form>
      {error && <p class="error" role="alert">{error}</p>}
    </main>
  );
}

function App() {
  const [signer, setSigner] = useState(savedSigner);
  const [newName, setNewName] = useState('');
  const signIn = (s, name) => { setNewName(name); setSigner(s); };
  return signer ? <Workspace signer={signer} newName={newName} onSignOut={() => setSigner(null)} /> : <SignIn onSigner={signIn} />;
}

render(<App />, document.getElementById('root'));
