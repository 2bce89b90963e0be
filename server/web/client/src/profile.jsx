// The reader's own settings: their picture (uploaded with Blossom, kept in
// their kind 0 profile as `picture`), appearance, notifications, their key.
import { useState } from 'preact/hooks';
import { usePeople } from './people.js';
import { Avatar } from './avatar.jsx';
import { ThemeSwitch } from './theme.jsx';
import { NotifyButton, canNotify } from './notify.jsx';
import { useTeamEmoji, addTeamEmoji, CustomEmoji } from './emoji.jsx';

export function Profile({ signer, relay, api, onBackup, onClose, onError }) {
  const people = usePeople();
  const [busy, setBusy] = useState(false);
  const upload = async (e) => {
    const f = e.target.files[0];
    e.target.value = '';
    if (!f) return;
    setBusy(true);
    try {
      const d = await api.upload(f);
      await people.saveProfile(signer.pubkey, { picture: d.thumb || d.url });
    } catch (err) { onError(err.message); }
    setBusy(false);
  };
  const permission = canNotify() ? Notification.permission : 'unsupported';
  return (
    <section class="panel profile" id="profile" aria-labelledby="profile-title">
      <h1 id="profile-title">Your settings</h1>
      <h2>Picture</h2>
      <Avatar pubkey={signer.pubkey} people={people} size={72} />
      <p>
        <label for="picture-file">Upload a picture (others see it beside your messages)</label>{' '}
        <input id="picture-file" type="file" accept="image/*" disabled={busy} onChange={upload} />
        {busy && <span role="status"> Uploading…</span>}
      </p>
      <h2>Team emoji</h2>
      <TeamEmojiForm me={signer.pubkey} relay={relay} api={api} onError={onError} />
      <h2>Appearance</h2>
      <ThemeSwitch />
      <h2>Notifications</h2>
      <p>{permission === 'granted' ? 'On: mentions and direct messages while you are elsewhere.'
        : permission === 'denied' ? 'Blocked in this browser’s site settings.'
        : permission === 'unsupported' ? 'This browser has none.' : 'Off.'} <NotifyButton /></p>
      {signer.nsec && <><h2>Your key</h2><p><button id="profile-backup" onClick={onBackup}>Back up your key</button></p></>}
      <p><button id="profile-close" onClick={onClose}>Done</button></p>
    </section>
  );
}

// The team's custom emoji, and adding one: a picture uploaded here (Blossom),
// its :shortcode: added to my own emoji set (kind 30030, NIP-30).
function TeamEmojiForm({ me, relay, api, onError }) {
  const team = useTeamEmoji();
  const [busy, setBusy] = useState(false);
  const add = async (e) => {
    e.preventDefault();
    const f = e.target;
    const code = f.code.value.trim().replace(/^:|:$/g, ''), file = f.picture.files[0];
    if (!code || !file) return onError('A team emoji needs a shortcode and a picture.');
    setBusy(true);
    try {
      const d = await api.upload(file);
      await addTeamEmoji(relay, me, code, d.url);
      f.reset();
    } catch (err) { onError(err.message); }
    setBusy(false);
  };
  return (
    <>
      <p id="team-emoji">{team.size ? [...team].map(([code, path]) => <span class="team-emoji" key={code}><CustomEmoji code={code} path={path} /> :{code}:</span>)
        : 'None yet: add the first.'}</p>
      <form class="add-emoji" onSubmit={add}>
        <label for="emoji-code">Shortcode</label> <input id="emoji-code" name="code" placeholder="party_parrot" />
        <label for="emoji-file">Picture</label> <input id="emoji-file" name="picture" type="file" accept="image/*" />
        <button type="submit" id="add-emoji" disabled={busy}>Add emoji</button>
        {busy && <span role="status"> Uploading…</span>}
      </form>
    </>
  );
}
