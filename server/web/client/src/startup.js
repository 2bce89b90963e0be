// The workspace's first render (its channels and unread counts drawn) comes
// first: what it does not need (my relay role, the feed's count, presence,
// the open channel's members and history, the outbox's IndexedDB) waits for
// `firstRender`, so their signatures, requests and re-renders stay off its
// path (docs/performance.md, "Web client first render"). The workspace settles
// it in a task after the frame that drew it, so that frame is painted first.
// It settles at that render, when there is no channel to count, or after
// FALLBACK_MS whatever happened (an offline start, a refused sign-in).
const FALLBACK_MS = 1500;

let settle;
export const firstRender = new Promise((resolve) => { settle = resolve; });
export const rendered = () => settle();
setTimeout(rendered, FALLBACK_MS);
