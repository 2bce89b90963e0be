// Backing up a key made in this browser: it exists nowhere else, so signing
// out (or clearing the browser) would lose the account for good. The nsec
// can be shown, copied or downloaded; having done either is remembered, and
// signing out a key never backed up asks first.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { npub } from './signer.js';

const flag = (pubkey) => 'buzz.backedup.' + pubkey;
export const backedUp = (pubkey) => localStorage.getItem(flag(pubkey)) === '1';
export const markBackedUp = (pubkey) => localStorage.setItem(flag(pubkey), '1');

export function KeyBackup({ signer, onClose }) {
  const [shown, setShown] = useState(false);
  const [said, setSaid] = useState('');
  const nsec = signer.nsec();
  const file = useMemo(() => URL.createObjectURL(new Blob([`Your Buzz secret key (keep it private):\n${nsec}\n\npublic key: ${npub(signer.pubkey)}\n`],
    { type: 'text/plain' })), [nsec]);
  useEffect(() => () => URL.revokeObjectURL(file), [file]);
  const copy = async () => {
    try { await navigator.clipboard.writeText(nsec); markBackedUp(signer.pubkey); setSaid('Copied.'); } catch (e) {
      setSaid('The browser did not allow copying: show the key and copy it by hand.');
    }
  };
  return (
    <section class="panel backup" id="key-backup" role="dialog" aria-labelledby="backup-title">
      <h1 id="backup-title">Back up your key</h1>
      <p>This key was made in this browser and exists nowhere else. Anyone holding it is you, so keep it private;
        without it, signing out or clearing this browser loses this account for good.</p>
      <label for="backup-nsec">Your secret key (nsec)</label>
      <input id="backup-nsec" readonly type={shown ? 'text' : 'password'} value={nsec} onCopy={() => markBackedUp(signer.pubkey)} />
      <p>
        <button id="backup-show" onClick={() => { setShown(!shown); if (!shown) markBackedUp(signer.pubkey); }}>{shown ? 'Hide' : 'Show'}</button>{' '}
        <button id="backup-copy" onClick={copy}>Copy</button>{' '}
        <a id="backup-download" class="button" href={file} download="buzz-key.txt" onClick={() => { markBackedUp(signer.pubkey); setSaid('Downloaded.'); }}>Download</a>{' '}
        <button id="backup-close" onClick={onClose}>Done</button>
      </p>
      {said && <p class="note" role="status">{said}</p>}
    </section>
  );
}
