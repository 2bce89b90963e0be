// Entry: sign in, then the workspace. See ../README.md for the layout.
// Signing in ends when the relay accepted the AUTH signed with the chosen key
// or extension; until then nothing is kept and no workspace is shown, so a
// refusal (the extension's or the relay's) leaves the person here, told why.
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { savedSigner, keySigner, extensionSigner, extensionRemembered, npub } from './signer.js';
import { Relay } from './relay.js';
import { Workspace } from './workspace.jsx';
import { markBackedUp } from './backup.jsx';
import { applyTheme } from './theme.jsx';

const relayUrl = () => location.origin.replace(/^http/, 'ws');

// An extension injects window.nostr when it likes: often after this script
// ran (at the document's end, or later). Look again until it is there.
function useExtension() {
  const [present, setPresent] = useState(!!window.nostr);
  useEffect(() => {
    if (present) return;
    const t = setInterval(() => { if (window.nostr) setPresent(true); }, 250);
    return () => clearInterval(t);
  }, [present]);
  return present;
}

function SignIn({ onSession }) {
  const [text, setText] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState('');
  const [waiting, setWaiting] = useState('');
  const extension = useExtension();
  // An extension's prompt may never be answered: Cancel gives up on this
  // attempt, and whatever it answers later is dropped.
  const current = useRef(null);  // {relay} of the attempt under way
  const attempt = async (make, what) => {
    current.current?.relay?.close();  // one attempt at a time
    const mine = {};
    current.current = mine;
    setError('');
    setWaiting(what);
    let signer;
    try {
      signer = await make();
      if (current.current !== mine) return;
      mine.relay = new Relay(relayUrl(), signer);
      await mine.relay.ready;
      if (current.current !== mine) return;
      signer.remember();
      if (signer.pasted) markBackedUp(signer.pubkey);  // the person has it already
      onSession({ signer, relay: mine.relay }, name.trim());
    } catch (e) {
      mine.relay?.close();
      if (current.current !== mine) return;
      // Refused by the relay (a closed relay, not yet a member): the person
      // needs their public key for an admin, and the same key to try again.
      if (e.byRelay) {
        setError(`${e.message}. An admin can add you by your public key, ${npub(signer.pubkey)}.` +
          (signer.nsec ? ' Your key stays filled in here: sign in again once added.' : ''));
        if (signer.nsec) setText(signer.nsec());
      } else setError(e.message);
      setWaiting('');
    }
  };
  const cancel = () => {
    current.current?.relay?.close();
    current.current = null;
    setWaiting('');
  };
  const withExtension = () => attempt(extensionSigner, 'Waiting for your browser extension…');
  // Signed in with the extension last time: again, as soon as it is there.
  const tried = useRef(false);
  useEffect(() => {
    if (extension && extensionRemembered() && !tried.current) { tried.current = true; withExtension(); }
  }, [extension]);
  return (
    <main class="signin">
      <h1>Buzz</h1>
      <p>Sign in with your Nostr key.</p>
      {extension && <button id="signin-extension" disabled={!!waiting} onClick={withExtension}>Use browser extension</button>}
      <form onSubmit={(e) => { e.preventDefault(); attempt(() => keySigner(text), 'Signing in…'); }}>
        <label for="nsec">Paste an nsec (kept in this browser only)</label>
        <input id="nsec" type="password" autocomplete="off" value={text} onInput={(e) => setText(e.target.value)} placeholder="nsec1…" />
        <label for="signin-name">Your name (optional; others see it)</label>
        <input id="signin-name" autocomplete="name" value={name} onInput={(e) => setName(e.target.value)} placeholder="Alice" />
        <button type="submit" id="signin-key" disabled={!!waiting}>{text ? 'Sign in' : 'Create a new key'}</button>
      </form>
      {waiting && <p class="note" id="signin-waiting" role="status">{waiting} <button type="button" id="signin-cancel" onClick={cancel}>Cancel</button></p>}
      {error && <p class="error" id="signin-error" role="alert">{error}</p>}
    </main>
  );
}

function App() {
  // A key kept from the last visit signs in at once.
  const [session, setSession] = useState(() => {
    const signer = savedSigner();
    return signer && { signer, relay: new Relay(relayUrl(), signer) };
  });
  const [newName, setNewName] = useState('');
  const signIn = (s, name) => { setNewName(name); setSession(s); };
  return session
    ? <Workspace signer={session.signer} relay={session.relay} newName={newName} onSignOut={() => setSession(null)} />
    : <SignIn onSession={signIn} />;
}

applyTheme();
render(<App />, document.getElementById('root'));
