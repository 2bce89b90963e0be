// The channel's canvas (docs/reference/channels.md §10): one shared markdown document, each
// save a new kind 40100, the newest one current, kept live. Last write wins,
// so an editor is told when someone else saved meanwhile.
import { useEffect, useState } from 'preact/hooks';
import { usePeople } from './people.js';

const CLOCK = new Intl.DateTimeFormat([], { dateStyle: 'medium', timeStyle: 'short' });

// **bold**, *italic*, `code` inside a line; text stays text (no HTML is parsed).
function inline(text) {
  const out = [];
  const re = /(\*\*[^*]+\*\*|\*[^*]+\*|`[^`]+`)/g;
  let last = 0;
  for (const m of text.matchAll(re)) {
    out.push(text.slice(last, m.index));
    const t = m[0];
    out.push(t.startsWith('**') ? <strong>{t.slice(2, -2)}</strong> : t.startsWith('`') ? <code>{t.slice(1, -1)}</code> : <em>{t.slice(1, -1)}</em>);
    last = m.index + t.length;
  }
  out.push(text.slice(last));
  return out;
}

// Headings, bullet and numbered lists, code fences and paragraphs: the markdown a canvas needs.
export function Markdown({ text }) {
  const blocks = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('```')) {
      const code = [];
      for (i++; i < lines.length && !lines[i].startsWith('```'); i++) code.push(lines[i]);
      blocks.push(<pre><code>{code.join('\n')}</code></pre>);
    } else if (/^#{1,4} /.test(line)) {
      const level = line.indexOf(' ');
      const H = 'h' + level;
      blocks.push(<H>{inline(line.slice(level + 1))}</H>);
    } else if (/^\s*([-*]|\d+\.) /.test(line)) {
      const ordered = /^\s*\d+\. /.test(line);
      const items = [];
      for (; i < lines.length && /^\s*([-*]|\d+\.) /.test(lines[i]); i++) items.push(<li>{inline(lines[i].replace(/^\s*([-*]|\d+\.) /, ''))}</li>);
      i--;
      blocks.push(ordered ? <ol>{items}</ol> : <ul>{items}</ul>);
    } else if (line.trim()) {
      const para = [line];
      for (; i + 1 < lines.length && lines[i + 1].trim() && !/^(#{1,4} |```|\s*([-*]|\d+\.) )/.test(lines[i + 1]); i++) para.push(lines[i + 1]);
      blocks.push(<p>{inline(para.join('\n'))}</p>);
    }
  }
  return <div class="markdown">{blocks}</div>;
}

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
      <header><h3>Canvas</h3><button aria-label="close canvas" onClick={onClose}>✕</button></header>
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
          {doc && <Markdown text={doc.content} />}
          {doc === null && <p class="empty">No canvas yet.</p>}
          {!readOnly && doc !== undefined && (
            <button id="canvas-edit" onClick={() => setDraft({ text: doc?.content ?? '', base: doc?.id })}>{doc ? 'Edit' : 'Start the canvas'}</button>
          )}
        </>
      )}
    </aside>
  );
}
