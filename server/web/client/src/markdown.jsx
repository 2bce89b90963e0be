// Markdown for messages and the canvas, drawn as Preact elements: text is
// only ever text (no HTML from content is parsed or inserted), and a link is a
// link only to http(s) or mailto, opened in a new tab without an opener or a
// referrer. Blocks: paragraphs, ``` code blocks, > quotes, - and 1. lists, and
// (the canvas) # headings; inline: **bold**, *italic* or _italic_, `code`,
// ~~struck~~, [text](url) and bare URLs; a NIP-30 :shortcode: as its picture.

const SAFE = /^(https?:\/\/|mailto:)/i;
// A bare URL ends before trailing punctuation ("see https://x.org/a.").
const BARE = String.raw`https?:\/\/[^\s<>]*[^\s<>.,;:!?)\]'"*_~]`;
const INLINE = new RegExp(String.raw`(\x60[^\x60\n]+\x60)|\[([^\]\n]+)\]\(([^)\s]+)\)|(\*\*[^*\n]+?\*\*)|(~~[^~\n]+?~~)|(\*[^*\s][^*\n]*?\*|\b_[^_\s][^_\n]*?_\b)|(${BARE})|:([a-zA-Z0-9_+-]+):`, 'g');

// The first web link in a text ([label](url) or bare), outside code; null when none.
const FIRST_LINK = new RegExp(String.raw`\x60[^\x60\n]*\x60|\]\((https?:\/\/[^)\s]+)\)|(${BARE})`, 'g');
export function firstLink(text) {
  for (const m of text.matchAll(FIRST_LINK)) if (m[1] || m[2]) return m[1] || m[2];
  return null;
}

export function Link({ href, children }) {
  if (!SAFE.test(href)) return <>{children}</>;
  return <a href={href} target="_blank" rel="noopener noreferrer">{children}</a>;
}

// One line's worth of inline markdown; opts.url(href) may draw a bare URL
// itself (an upload inline), else it is a link; opts.emoji (shortcode -> the
// picture's path, the event's NIP-30 emoji tags) draws a :shortcode: it names.
export function inline(text, opts = {}) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    out.push(text.slice(last, m.index));
    last = m.index + m[0].length;
    const [all, code, label, href, bold, strike, italic, bare, shortcode] = m;
    if (code) out.push(<code>{code.slice(1, -1)}</code>);
    else if (label) out.push(SAFE.test(href) ? <Link href={href}>{inline(label)}</Link> : all);
    else if (bold) out.push(<strong>{inline(bold.slice(2, -2), opts)}</strong>);
    else if (strike) out.push(<s>{inline(strike.slice(2, -2), opts)}</s>);
    else if (italic) out.push(<em>{inline(italic.slice(1, -1), opts)}</em>);
    else if (bare) out.push(opts.url?.(bare) ?? <Link href={bare}>{bare}</Link>);
    else if (shortcode) {
      const path = opts.emoji?.get(shortcode);
      out.push(path ? <img class="custom-emoji" src={path} alt={all} title={all} /> : all);
    }
  }
  out.push(text.slice(last));
  return out;
}

const LIST = /^\s*([-*]|\d+\.) /;
const QUOTE = /^> ?/;
const HEADING = /^#{1,4} /;
const startsBlock = (line, headings) => line.startsWith('```') || LIST.test(line) || QUOTE.test(line) || (headings && HEADING.test(line));

function blocks(lines, opts) {
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('```')) {
      const code = [];
      for (i++; i < lines.length && !lines[i].startsWith('```'); i++) code.push(lines[i]);
      out.push(<pre><code>{code.join('\n')}</code></pre>);
    } else if (opts.headings && HEADING.test(line)) {
      const level = line.indexOf(' ');
      const H = 'h' + level;
      out.push(<H>{inline(line.slice(level + 1), opts)}</H>);
    } else if (QUOTE.test(line)) {
      const quoted = [];
      for (; i < lines.length && QUOTE.test(lines[i]); i++) quoted.push(lines[i].replace(QUOTE, ''));
      i--;
      out.push(<blockquote>{blocks(quoted, opts)}</blockquote>);
    } else if (LIST.test(line)) {
      const ordered = /^\s*\d+\. /.test(line);
      const items = [];
      for (; i < lines.length && LIST.test(lines[i]) && /^\s*\d+\. /.test(lines[i]) === ordered; i++) items.push(<li>{inline(lines[i].replace(LIST, ''), opts)}</li>);
      i--;
      out.push(ordered ? <ol>{items}</ol> : <ul>{items}</ul>);
    } else if (line.trim()) {
      const para = [line];
      for (; i + 1 < lines.length && lines[i + 1].trim() && !startsBlock(lines[i + 1], opts.headings); i++) para.push(lines[i + 1]);
      out.push(<p>{inline(para.join('\n'), opts)}</p>);
    }
  }
  return out;
}

// headings: # lines are headings (the canvas; in a message they stay text).
export function Markdown({ text, headings = false, url, emoji, class: cls = 'markdown', dir }) {
  return <div class={cls} dir={dir}>{blocks(text.split('\n'), { headings, url, emoji })}</div>;
}
