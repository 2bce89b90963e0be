// The channel's canvas (docs/reference/channels.md §10): one shared markdown document, each
// save a new kind 40100, the newest one current, kept live. Last write wins,
// so an editor is told when someone else saved meanwhile.
import { useEffect, useState } from 'preact/hooks';
import { usePeople } from './people.js';
import { Markdown } from './markdown.jsx';

const CLOCK = new Intl.DateTimeFormat([], { dateStyle: 'medium', timeStyle: 'short' });

export function Canvas({ channel, relay, me, readOnly, onError, onClose }) {
  const people = usePeople();
  const [doc, setDoc] = useState(undefined);  // the newest 40100, null when none
  const [draft, setDraft] = useState(null);   // {text, base} while editing
  const [busy, setBusy] = useState(false);
  useEffect(() => relay.subscribe([{ kinds: [40100], '#h': [channel.id], limit: 1 }],
    (ev) => setDoc((d) => (!d || d.created_at <= ev.created_at ? ev : d)),
    () => setDoc((d) => d ?? null)), [channel.id]);
  useEffect(() => { if (doc) people.want([doc.pubkey]); }, [doc]);

  const save = async (e) => {
    e.preventDefault();
    setBusy(true);
    // Newest wins by created_at: one second past the version it replaces, so
    // two saves within a second still come out in order for every reader.
    const created_at = Math.max(Math.floor(Date.now() / 1000), (doc?.created_at ?? 0) + 1);
    const r = await relay.publish({ kind: 40100, created_at, content: draft.text, tags: [['h', channel.id]] });
    setBusy(false);
    if (!r.ok) return onError(r.message);
    setDoc(r.event);
    setDraft(null);
  };
  const changedMeanwhile = draft && doc && draft.base !== doc.id && doc.pubkey !== me;
  return (
    <aside class="canvas" aria-label="canvas">
      <header><h2>Canvas</h2><button aria-label="close canvas" onClick={onClose}>✕</button></header>
      {doc === undefined && <p class="empty">Loading…</p>}
      {doc && !draft && <small class="canvas-meta">{people.name(doc.pubkey)} · {CLOCK.format(doc.created_at * 1000)}</small>}
      {draft ? (
        <form class="canvas-edit" onSubmit={save}>
          {changedMeanwhile && <p class="note" role="alert">{people.name(doc.pubkey)} saved a newer version meanwhile; saving replaces it.</p>}
          <textarea id="canvas-text" aria-label="canvas text (markdown)" value={draft.text} rows="14"
            onInput={(e) => setDraft({ ...draft, text: e.target.value })} />
          <span>
            <button type="submit" id="canvas-save" disabled={busy}>Save</button>
            <button type="button" onClick={() => setDraft(null)}>Cancel</button>
          </span>
        </form>
      ) : (
        <>
          {doc && <Markdown text={doc.content} headings />}
          {doc === null && <p class="empty">No canvas yet.</p>}
          {!readOnly && doc !== undefined && (
            <button id="canvas-edit" onClick={() => setDraft({ text: doc?.content ?? '', base: doc?.id })}>{doc ? 'Edit' : 'Start the canvas'}</button>
          )}
        </>
      )}
    </aside>
  );
}
