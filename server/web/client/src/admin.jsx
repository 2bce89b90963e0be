// A channel's members and settings (docs/reference/channels.md §3.3, §4): what each person
// may do is shown to them; the relay decides, and its refusal is shown too.
import { useState } from 'preact/hooks';
import { usePeople, findPerson } from './people.js';

const ROLES = ['owner', 'admin', 'member', 'guest', 'bot'];
export const elevated = (role) => role === 'owner' || role === 'admin';

// Publishes one admin event; the relay's refusal becomes the error.
async function publish(relay, template) {
  const r = await relay.publish(template);
  if (!r.ok) throw new Error(r.message);
}

export function Members({ channel, members, me, relay, api, onChange, onError, onClose, onDm, onOpen }) {
  const people = usePeople();
  const [newRole, setNewRole] = useState('member');
  const myRole = members.find((m) => m.pubkey === me)?.role;
  const admin = elevated(myRole);
  const dm = channel.channel_type === 'dm';
  const act = (template) => publish(relay, { ...template, tags: [['h', channel.id], ...template.tags] }).then(onChange, (e) => onError(e.message));
  // Owners grant and revoke owner; admins the rest, never on an owner.
  const assignable = myRole === 'owner' ? ROLES : ROLES.filter((r) => r !== 'owner');
  const canManage = (m) => admin && m.pubkey !== me && (myRole === 'owner' || m.role !== 'owner');

  const add = async (e) => {
    e.preventDefault();
    const f = e.target;
    try {
      const p = await findPerson(api, f.who.value.trim());
      if (dm) {
        // A DM's people are fixed: adding someone opens the DM of the larger set.
        const r = await api.post(`/api/dms/${channel.id}/members`, { pubkeys: [p] });
        return onOpen(r.channel_id);
      }
      await publish(relay, { kind: 9000, tags: [['h', channel.id], ['p', p], ['role', admin ? newRole : 'member']] });
      f.who.value = '';
      setNewRole('member');
      onChange();
    } catch (err) { onError(err.message); }
  };
  const remove = (m) => {
    if (confirm(`Remove ${people.name(m.pubkey)} from ${channel.name}?`)) act({ kind: 9001, tags: [['p', m.pubkey]] });
  };
  const leave = () => { if (confirm(`Leave ${channel.name}?`)) act({ kind: 9022, tags: [] }); };

  return (
    <aside class="members" aria-label="members">
      <header><h2>Members ({members.length})</h2><button aria-label="close members" onClick={onClose}>✕</button></header>
      <ul>{members.map((m) => (
        <li key={m.pubkey} data-member={m.pubkey}>
          <span class={'dot ' + people.presence(m.pubkey)} title={people.presence(m.pubkey)} />
          <span class="who">{people.name(m.pubkey)}{m.pubkey === me && ' (you)'}</span>
          {canManage(m) ? (
            <select class="role-select" aria-label={'role of ' + people.name(m.pubkey)} value={m.role}
              onChange={(e) => act({ kind: 9000, tags: [['p', m.pubkey], ['role', e.target.value]] })}>
              {(assignable.includes(m.role) ? assignable : [m.role, ...assignable]).map((r) => <option value={r}>{r}</option>)}
            </select>
          ) : <small class="role">{m.role}</small>}
          {canManage(m) && !dm && <button class="remove-member" aria-label={'remove ' + people.name(m.pubkey)} onClick={() => remove(m)}>Remove</button>}
          {m.pubkey !== me && !dm && <button class="dm-member" aria-label={'DM ' + people.name(m.pubkey)} onClick={() => onDm(m.pubkey)}>DM</button>}
          {m.pubkey === me && !dm && <button class="leave" onClick={leave}>Leave</button>}
        </li>
      ))}</ul>
      {!myRole && channel.visibility === 'open' && !dm && <button id="join-channel" onClick={() => act({ kind: 9021, tags: [] })}>Join this channel</button>}
      <form onSubmit={add}>
        <input name="who" id="add-member" placeholder={dm ? 'add someone (a new DM)' : 'add: name, npub or hex'} aria-label="add member" />
        {admin && (
          <select id="add-member-role" aria-label="role of the new member" value={newRole} onChange={(e) => setNewRole(e.target.value)}>
            {assignable.map((r) => <option value={r}>{r}</option>)}
          </select>
        )}
        <button type="submit" id="add-member-button">Add</button>
      </form>
      {!dm && !admin && <p class="note" id="members-denied">Only the channel's owners and admins change roles or remove members.</p>}
    </aside>
  );
}

// 9002: topic and purpose are any member's; name, description, visibility and
// archiving the admins'; deleting (9008) the owner's. Only changed fields are sent.
export function Settings({ channel, role, relay, onError, onDone }) {
  const admin = elevated(role);
  const archived = !!channel.archived_at;
  const send = (tags) => publish(relay, { kind: 9002, tags: [['h', channel.id], ...tags] }).then(onDone, (e) => onError(e.message));
  const save = (e) => {
    e.preventDefault();
    const f = e.target;
    const fields = [['topic', channel.topic || ''], ['purpose', channel.purpose || '']];
    if (admin) fields.push(['name', channel.name], ['about', channel.description || ''], ['visibility', channel.visibility]);
    const tags = fields.filter(([k, was]) => f[k].value !== was).map(([k]) => [k, f[k].value]);
    if (tags.length) send(tags); else onDone();
  };
  const remove = () => {
    if (!confirm(`Delete ${channel.name} for everyone?`)) return;
    publish(relay, { kind: 9008, tags: [['h', channel.id]] }).then(onDone, (e) => onError(e.message));
  };
  return (
    <form class="settings" onSubmit={save} aria-label="channel settings">
      <input name="topic" id="settings-topic" placeholder="topic" defaultValue={channel.topic || ''} aria-label="topic" disabled={archived} />
      <input name="purpose" id="settings-purpose" placeholder="purpose" defaultValue={channel.purpose || ''} aria-label="purpose" disabled={archived} />
      {admin && <input name="name" id="settings-name" placeholder="name" defaultValue={channel.name} aria-label="name" disabled={archived} />}
      {admin && <input name="about" id="settings-about" placeholder="description" defaultValue={channel.description} aria-label="description" disabled={archived} />}
      {admin && (
        <select name="visibility" id="settings-visibility" aria-label="visibility" disabled={archived}>
          <option value="open" selected={channel.visibility === 'open'}>open</option>
          <option value="private" selected={channel.visibility === 'private'}>private</option>
        </select>
      )}
      {!archived && <button type="submit" id="save-settings">Save</button>}
      {admin && <button type="button" id="archive-channel" onClick={() => send([['archived', archived ? 'false' : 'true']])}>{archived ? 'Unarchive' : 'Archive'}</button>}
      {role === 'owner' && <button type="button" id="delete-channel" class="danger" onClick={remove}>Delete channel</button>}
      {!admin && <p class="note" id="settings-denied">Only the channel's owners and admins rename, describe, change visibility, archive or delete it.</p>}
    </form>
  );
}
