// The page's first script (app/boot.js, a classic one in its head, before the
// app's): a key kept from the last visit signs in again at once, so the
// relay's WebSocket opens here, and its handshake and the relay's NIP-42
// challenge overlap the reading and evaluation of the app's script. relay.js
// takes the socket over, with the messages that came meanwhile
// (docs/performance.md, "Web client first render").
import { keptHex, relayUrl } from './kept.js';

if (keptHex()) {
  const early = { url: relayUrl(), messages: [], closed: false };
  early.ws = new WebSocket(early.url);
  early.ws.onmessage = (m) => early.messages.push(m.data);
  early.ws.onclose = () => { early.closed = true; };
  window.__buzzSocket = early;
}
