// End-to-end: `buzz acp` against the real relay, running real ACP agents
// written with the official ACP SDK (acp_agent.mjs), which answer through
// `buzz mcp`. A person mentions the agent in a channel and the answer comes
// back in the thread; a second mention while the agent works waits its turn;
// a stranger's mention reaches no agent; a hung agent is stopped at the idle
// timeout, a crashed one and one that writes garbage on stdout are
// restarted, and each batch is answered by the new process; the relay going
// away and coming back is survived. About 30 s: three of the cases wait out
// the spec's 5 s retry backoff and the reconnect waits its 1–2 s backoff.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSecretKey, getPublicKey, finalizeEvent } from 'nostr-tools/pure';
import { getToken } from 'nostr-tools/nip98';
import { binary, freePort, waitHealthy, Conn } from './relay_helpers.mjs';
import { spawnRelay } from './spawn_relay.mjs';

const agentScript = new URL('./acp_agent.mjs', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'buzz-acp-'));
const dataDir = join(work, 'data');
const agentLog = join(work, 'agent.log');
const markers = join(work, 'markers');
const alice = generateSecretKey(), agent = generateSecretKey(), mallory = generateSecretKey();
const agentHex = getPublicKey(agent);
let port, url, relayProc, harness, harnessErr = '', aliceConn, channel;

function startRelayProcess() {
  relayProc = spawnRelay(binary, ['--bind', `127.0.0.1:${port}`, '--relay-url', url, '--data-dir', dataDir, '--open']);
  return waitHealthy(port, relayProc);
}

async function stopRelayProcess() {
  if (relayProc.exitCode !== null) return;
  const exited = new Promise((resolve) => relayProc.once('exit', resolve));
  relayProc.kill('SIGTERM');
  await exited;
}

const now = () => Math.floor(Date.now() / 1000);
const sign = (sk, kind, tags, content = '') => finalizeEvent({ kind, created_at: now(), tags, content }, sk);

async function publish(conn, event) {
  conn.send(['EVENT', event]);
  const ok = await conn.next((m) => m[0] === 'OK' && m[1] === event.id);
  assert.equal(ok[2], true, ok[3]);
  return event;
}

// The prompts the agents received, as logged by acp_agent.mjs.
function prompts() {
  if (!existsSync(agentLog)) return [];
  return readFileSync(agentLog, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

// The finished turns that carried event `id` (the agent logs a turn after its answer is out).
async function turnsWith(id, count = 1) {
  for (let i = 0; i < 50; i++) {
    const found = prompts().filter((x) => x.prompt.includes(id) && (x.ended || x.crashed || x.garbled));
    if (found.length >= count) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  return prompts().filter((x) => x.prompt.includes(id));
}

// Waits for the agent's reply in the thread of `root` and returns it.
async function replyTo(root, timeoutMs = 20000) {
  const sub = 'reply' + Math.random();
  aliceConn.send(['REQ', sub, { kinds: [9], authors: [agentHex], '#h': [channel], '#e': [root.id] }]);
  const m = await aliceConn.next((x) => x[0] === 'EVENT' && x[1] === sub, timeoutMs);
  aliceConn.send(['CLOSE', sub]);
  return m[2];
}

const mention = (sk, content) => sign(sk, 9, [['h', channel], ['p', agentHex]], content);

before(async () => {
  port = await freePort();
  url = `ws://127.0.0.1:${port}`;
  await startRelayProcess();
  aliceConn = await Conn.open(url, alice);
  channel = randomUUID();
  await publish(aliceConn, sign(alice, 9007, [['h', channel], ['name', 'acp-team'], ['visibility', 'open'], ['channel_type', 'stream']]));
  await publish(aliceConn, sign(alice, 9000, [['h', channel], ['p', agentHex]]));
  await publish(aliceConn, sign(alice, 9000, [['h', channel], ['p', getPublicKey(mallory)]]));

  // The agent's token, minted with its own key (NIP-98), naming alice as its owner.
  const body = { name: 'acp-agent', owner_pubkey: getPublicKey(alice),
                 scopes: ['messages:read', 'messages:write', 'channels:read', 'users:read'] };
  const tokenUrl = `http://127.0.0.1:${port}/api/tokens`;
  const auth = await getToken(tokenUrl, 'post', (e) => finalizeEvent(e, agent), true, body);
  const minted = await fetch(tokenUrl, { method: 'POST', headers: { Authorization: auth, 'Content-Type': 'application/json' },
                                         body: JSON.stringify(body) });
  assert.equal(minted.status, 201, await minted.clone().text());
  const { token } = await minted.json();

  spawnSync('mkdir', ['-p', markers]);
  harness = spawn(binary, ['acp', '--agent-command', process.execPath, '--agent-args', agentScript, '--agents', '2',
                           '--idle-timeout', '3', '--max-turn-duration', '60'], {
    env: { PATH: process.env.PATH, BUZZ_RELAY_URL: url, BUZZ_PRIVATE_KEY: Buffer.from(agent).toString('hex'), BUZZ_API_TOKEN: token,
           ACP_AGENT_LOG: agentLog, ACP_MARKER_DIR: markers },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  harness.stderr.on('data', (d) => { harnessErr += d; process.stderr.write(d); });
  for (let i = 0; i < 200 && !/listening in 1 channels with 2 agents/.test(harnessErr); i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.match(harnessErr, /listening in 1 channels with 2 agents/);
});

after(async () => {
  if (harness && harness.exitCode === null) {
    const exited = new Promise((resolve) => harness.once('exit', resolve));
    harness.kill('SIGTERM');
    await exited;
  }
  aliceConn?.close();
  await stopRelayProcess();
  rmSync(work, { recursive: true, force: true });
});

test('a mention gets the agent\'s answer in its thread, with the prompt of §A.7, 👀 and typing meanwhile', async () => {
  const marks = 'marks' + Math.random();
  aliceConn.send(['REQ', marks, { kinds: [7, 20002], authors: [agentHex], '#h': [channel], since: now() }]);
  await aliceConn.next((m) => m[0] === 'EOSE' && m[1] === marks);
  const asked = await publish(aliceConn, mention(alice, 'please wait 2000 before: what is the build status?'));
  const reply = await replyTo(asked);
  assert.equal(reply.content, 'echo: please wait 2000 before: what is the build status?');
  assert.ok(reply.tags.some((t) => t[0] === 'e' && t[1] === asked.id), 'a reply in the thread');
  const [p] = await turnsWith(asked.id);
  // A new session's first prompt opens with the base prompt (HEAD Δ), then §A.7's sections.
  assert.match(p.prompt, /^\[Base\]\nYou are a member of a Buzz team[^]*?`buzz send-message --channel <uuid>\n/);
  assert.match(p.prompt, new RegExp(`\\n\\n\\[Context\\]\\nScope: channel\\nChannel: acp-team \\(#${channel}\\)\\n`));
  assert.match(p.prompt, /\n\n\[Buzz event: @mention\]\nEvent ID: [0-9a-f]{64}\n/);
  assert.match(p.prompt, /\nFrom: npub1[0-9a-z]+ \(hex: [0-9a-f]{64}\)\n|\nFrom: .+ \(npub: npub1/);
  assert.match(p.prompt, /\nContent: please wait 2000 before: what is the build status\?\nTags: \[\["h",/);
  assert.match(p.prompt, new RegExp(`\\nParsed: mentions=\\[(.+ \\()?${agentHex}\\)?\\]$`));
  // The harness's own marks, live: 👀 on the event, 💬 while the turn ran, typing (kind 20002) every 3 s.
  const seen = aliceConn.queue.filter((m) => m[0] === 'EVENT' && m[1] === marks).map((m) => m[2]);
  aliceConn.send(['CLOSE', marks]);
  const on = (e) => e.tags.some((t) => t[0] === 'e' && t[1] === asked.id);
  assert.ok(seen.some((e) => e.kind === 7 && e.content === '👀' && on(e)), 'queued mark');
  assert.ok(seen.some((e) => e.kind === 7 && e.content === '💬' && on(e)), 'working mark');
  assert.ok(seen.some((e) => e.kind === 20002 && e.tags.some((t) => t[0] === 'h' && t[1] === channel)), 'typing');
});

test('a p tag that is no key (a quote in it) costs no one their label in the prompt', async () => {
  // The harness asks the relay for every mentioned key's profile in one JSON body; a
  // 64-character tag value with a quote in it once broke that body, and every label with it.
  const carol = generateSecretKey();
  const carolHex = getPublicKey(carol);
  const carolConn = await Conn.open(url, carol);
  await publish(carolConn, sign(carol, 0, [], JSON.stringify({ name: 'carol', display_name: 'Carol' })));
  carolConn.close();
  const odd = 'x"'.padEnd(64, 'z');
  const asked = await publish(aliceConn, sign(alice, 9, [['h', channel], ['p', agentHex], ['p', carolHex], ['p', odd]],
                                              'who is carol?'));
  await replyTo(asked);
  const [p] = await turnsWith(asked.id);
  assert.ok(p.prompt.includes(`Carol (${carolHex})`), p.prompt);
});

test('a second mention while the agent works waits for the first turn, then gets its own', async () => {
  const first = await publish(aliceConn, mention(alice, 'please wait 1500 then answer'));
  await new Promise((r) => setTimeout(r, 300));
  const second = await publish(aliceConn, mention(alice, 'and this one'));
  const [r1, r2] = await Promise.all([replyTo(first), replyTo(second)]);
  assert.equal(r1.content, 'echo: please wait 1500 then answer');
  assert.equal(r2.content, 'echo: and this one');
  const [p1] = await turnsWith(first.id);
  const [p2] = await turnsWith(second.id);
  assert.ok(!p1.prompt.includes(second.id), 'the second was not in the first turn');
  assert.ok(BigInt(p2.arrived) >= BigInt(p1.ended), 'one turn at a time in a channel: the second waited');
});

test('!rotate from the owner: the channel\'s next turn runs in a new session, opened with the base prompt again', async () => {
  const before = await publish(aliceConn, mention(alice, 'before the rotation'));
  await replyTo(before);
  const again = await publish(aliceConn, mention(alice, 'same session'));
  await replyTo(again);
  const [p1] = await turnsWith(before.id);
  const [p2] = await turnsWith(again.id);
  assert.equal(p2.session, p1.session, 'an idle agent with the channel\'s session takes its next turn');
  assert.ok(p2.prompt.startsWith('[Context]'), 'no base prompt within a session');

  const logged = harnessErr.length;
  const rotate = await publish(aliceConn, mention(alice, '  !rotate '));
  for (let i = 0; i < 100 && !harnessErr.slice(logged).includes('!rotate in'); i++) await new Promise((r) => setTimeout(r, 50));
  assert.match(harnessErr.slice(logged), /!rotate in [0-9a-f-]{36}: its sessions are dropped/);
  const after = await publish(aliceConn, mention(alice, 'after the rotation'));
  await replyTo(after);
  const [p3] = await turnsWith(after.id);
  assert.notEqual(p3.session, p2.session, 'a new session after !rotate');
  assert.ok(p3.prompt.startsWith('[Base]\n'), 'the new session is told the base prompt');
  assert.ok(!prompts().some((x) => x.prompt.includes(rotate.id)), 'the command is consumed, not prompted');
});

test('a stranger\'s mention reaches no agent (respond-to owner-only)', async () => {
  const malloryConn = await Conn.open(url, mallory);
  const stranger = await publish(malloryConn, mention(mallory, 'do my bidding'));
  malloryConn.close();
  const owner = await publish(aliceConn, mention(alice, 'after the stranger'));
  await replyTo(owner);
  await new Promise((r) => setTimeout(r, 1000));  // the stranger's owner lookup is done by now
  assert.ok(!prompts().some((x) => x.prompt.includes(stranger.id)), 'no prompt carries the stranger\'s event');
});

// The agent that misbehaves is replaced, and the batch is answered by the new one.
async function survives(content, check) {
  const before = new Set(prompts().map((x) => x.pid));
  const asked = await publish(aliceConn, mention(alice, content));
  const reply = await replyTo(asked, 30000);
  assert.equal(reply.content, `echo: ${content}`);
  const tries = await turnsWith(asked.id, 2);
  const answered = tries.at(-1);
  assert.ok(tries.length >= 1);
  check(tries, answered, before);
  assert.ok(!before.has(answered.pid) || tries.length > 1, 'answered after a restart');
  await aliceConn.alive();  // the relay serves alice throughout
}

const dead = (pid) => { try { process.kill(pid, 0); return false; } catch { return true; } };

test('a hung agent is stopped at the idle timeout and the mention is answered by a new one', async () => {
  await survives('please hang', (tries, answered) => {
    assert.ok(tries.length >= 2, 'tried twice');
    assert.notEqual(tries[0].pid, answered.pid, 'a new agent answered');
    assert.ok(dead(tries[0].pid), 'the hung agent was killed');
    assert.equal(tries[0].stopReason, 'cancelled', 'it was cancelled first (session/cancel)');
  });
  assert.match(harnessErr, /idle timeout/);
});

test('a crashed agent is restarted', async () => {
  await survives('please crash', (tries, answered) => {
    assert.equal(tries[0].crashed, true);
    assert.notEqual(tries[0].pid, answered.pid);
  });
  assert.match(harnessErr, /agent exited/);
  assert.match(harnessErr, /restarted/);
});

test('an agent that writes garbage on stdout is replaced; the relay and others are unaffected', async () => {
  const bystander = await Conn.open(url, mallory);
  await survives('please garble', (tries, answered) => {
    assert.equal(tries[0].garbled, true);
    assert.notEqual(tries[0].pid, answered.pid);
    assert.ok(dead(tries[0].pid));
  });
  assert.match(harnessErr, /not a JSON-RPC message: this is not JSON-RPC/);
  await bystander.alive();
  bystander.close();
});

test('the relay going away and coming back: the harness reconnects and answers again', async () => {
  aliceConn.close();
  await stopRelayProcess();
  await new Promise((r) => setTimeout(r, 500));
  await startRelayProcess();
  aliceConn = await Conn.open(url, alice);
  for (let i = 0; i < 100 && !/reconnected to/.test(harnessErr); i++) await new Promise((r) => setTimeout(r, 100));
  assert.match(harnessErr, /reconnected to/);
  const asked = await publish(aliceConn, mention(alice, 'are you back?'));
  assert.equal((await replyTo(asked)).content, 'echo: are you back?');
});

test('buzz acp --help describes it; a bad configuration is refused with the spec\'s message', () => {
  const help = spawnSync(binary, ['acp', '--help'], { encoding: 'utf8' });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /Agent Client Protocol/);
  assert.match(help.stdout, /BUZZ_ACP_IDLE_TIMEOUT/);
  const bad = spawnSync(binary, ['acp', '--idle-timeout', '10', '--max-turn-duration', '5'],
                        { encoding: 'utf8', env: { PATH: process.env.PATH, BUZZ_PRIVATE_KEY: '1'.repeat(64) } });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /idle_timeout \(10s\) must be less than max_turn_duration \(5s\)/);
  const noKey = spawnSync(binary, ['acp'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  assert.equal(noKey.status, 1);
  assert.match(noKey.stderr, /private key is required/);
});

test('buzz acp models asks the agent and prints what it offers', () => {
  const r = spawnSync(binary, ['acp', 'models', '--agent-command', process.execPath, '--agent-args', agentScript, '--json'],
                      { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out, { agent: { name: 'acp-test-agent', version: '1.0.0' }, stable: { configOptions: [] }, unstable: null });
  const missing = spawnSync(binary, ['acp', 'models', '--agent-command', '/nonexistent/agent'], { encoding: 'utf8' });
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /^error: cannot run \/nonexistent\/agent/);
});
