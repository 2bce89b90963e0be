// End-to-end: `buzz mcp` driven by the official MCP SDK's client over its
// stdio transport, against the real relay — the tool list and schemas, a
// message sent and read back, a thread, search, a reaction, the canvas, the
// relay's refusals as isError results, and a malformed line answered with a
// JSON-RPC parse error while the server keeps serving.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { binary, startRelay } from './relay_helpers.mjs';

let relay, alice, bob;

function mcpEnv(privateKey) {
  return { PATH: process.env.PATH, BUZZ_RELAY_URL: relay.url, BUZZ_PRIVATE_KEY: privateKey };
}

async function connectClient(privateKey) {
  const transport = new StdioClientTransport({ command: binary, args: ['mcp'], env: mcpEnv(privateKey), stderr: 'pipe' });
  const client = new Client({ name: 'buzz-e2e', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

// Calls a tool that must succeed; returns its text parsed as JSON.
async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  assert.equal(r.isError, false, `${name} failed: ${r.content?.[0]?.text}`);
  assert.equal(r.content[0].type, 'text');
  return JSON.parse(r.content[0].text);
}

// Calls a tool that must fail; returns the {error, message} of its text.
async function callFailing(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  assert.equal(r.isError, true, `${name} should fail, answered ${r.content?.[0]?.text}`);
  return JSON.parse(r.content[0].text);
}

async function channelNamed(client, name) {
  const channels = await call(client, 'list_channels', { member: true });
  const c = channels.find((ch) => ch.name === name);
  assert.ok(c, `channel ${name} is listed`);
  return c.id;
}

before(async () => {
  relay = await startRelay(['--open']);
  alice = await connectClient(randomBytes(32).toString('hex'));
  bob = await connectClient(randomBytes(32).toString('hex'));
});

after(async () => {
  await alice?.close();
  await bob?.close();
  await relay?.stop();
});

test('initialize names the server and offers tools', () => {
  assert.equal(alice.getServerVersion().name, 'buzz');
  assert.ok(alice.getServerCapabilities().tools);
});

test('tools/list: every tool has a JSON Schema; token commands are not tools', async () => {
  const { tools } = await alice.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  for (const name of ['send_message', 'get_messages', 'get_thread', 'search', 'add_reaction', 'get_reactions',
                      'list_channels', 'create_channel', 'open_dm', 'list_dms', 'get_canvas', 'set_canvas',
                      'get_feed', 'list_workflows', 'trigger_workflow', 'approve_step']) {
    assert.ok(byName[name], `tool ${name} is listed`);
  }
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object', `${t.name} has an object schema`);
    assert.ok(t.description, `${t.name} has a description`);
  }
  assert.deepEqual(byName.send_message.inputSchema.required, ['channel', 'content']);
  assert.equal(byName.send_message.inputSchema.properties.reply_to.type, 'string');
  assert.equal(byName.send_message.inputSchema.properties.mention.type, 'array');
  assert.equal(byName.list_channels.inputSchema.properties.member.type, 'boolean');
  assert.equal(byName.set_canvas.inputSchema.properties.content.description, 'markdown', 'no "- for stdin" under MCP');
  assert.equal(byName.send_diff_message.inputSchema.properties.source_branch.description, 'source branch (with target_branch)');
  for (const hidden of ['auth', 'list_tokens', 'delete_token', 'delete_all_tokens']) assert.ok(!byName[hidden]);
});

test('send a message, read it back, reply in a thread, search, react, canvas', async () => {
  const created = await call(alice, 'create_channel', { name: 'mcp-general', type: 'stream', visibility: 'open' });
  assert.equal(created.accepted, true);
  const channel = await channelNamed(alice, 'mcp-general');

  const sent = await call(alice, 'send_message', { channel, content: 'the zebracorn build is green' });
  assert.equal(sent.accepted, true);
  const root = sent.event_id;
  const page = await call(alice, 'get_messages', { channel, limit: 10 });
  assert.ok(JSON.stringify(page).includes('the zebracorn build is green'), 'the message reads back');

  await call(alice, 'send_message', { channel, content: 'a reply in the thread', reply_to: root });
  const thread = await call(alice, 'get_thread', { channel, event: root });
  assert.ok(JSON.stringify(thread).includes('a reply in the thread'), 'the reply is in the thread');

  let hits;
  for (let i = 0; i < 50; i++) {  // the index commits shortly after the write
    hits = await call(alice, 'search', { query: 'zebracorn' });
    if (JSON.stringify(hits).includes(root)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(JSON.stringify(hits).includes(root), 'search finds the message');

  await call(alice, 'add_reaction', { event: root, emoji: '🎉' });
  const reactions = await call(alice, 'get_reactions', { event: root });
  assert.ok(JSON.stringify(reactions).includes('🎉'), 'the reaction is listed');
  await call(alice, 'remove_reaction', { event: root, emoji: '🎉' });
  assert.ok(!JSON.stringify(await call(alice, 'get_reactions', { event: root })).includes('🎉'), 'and removed');

  // The canvas; its "-" is text under MCP (stdin carries the protocol, it is
  // never read as input where the CLI would read it).
  await call(alice, 'set_canvas', { channel, content: '-' });
  assert.equal((await call(alice, 'get_canvas', { channel })).content, '-');
});

test('a private channel is not readable through another identity\'s server', async () => {
  await call(alice, 'create_channel', { name: 'mcp-secret', type: 'stream', visibility: 'private' });
  const channel = await channelNamed(alice, 'mcp-secret');
  await call(alice, 'send_message', { channel, content: 'only for alice' });
  const denied = await callFailing(bob, 'get_messages', { channel });
  assert.match(denied.error, /^(auth_error|relay_error)$/);
  assert.ok(!JSON.stringify(denied).includes('only for alice'));
  const hits = await call(bob, 'search', { query: 'alice' });
  assert.ok(!JSON.stringify(hits).includes('only for alice'), 'search does not leak it');
});

test('bad input and the relay\'s refusals are isError results', async () => {
  const badId = await callFailing(alice, 'get_messages', { channel: 'not-a-uuid' });
  assert.deepEqual(badId, { error: 'user_error', message: 'invalid UUID: not-a-uuid' });
  const unknown = await callFailing(alice, 'send_message', { channel: randomUUID(), content: 'into the void' });
  assert.match(unknown.error, /^(relay_error|auth_error)$/);
  assert.match(unknown.message, /^relay error \d{3}: ./, 'the relay\'s own text');
  const missing = await callFailing(alice, 'send_message', { content: 'where to?' });
  assert.equal(missing.message, 'missing required argument(s): channel');
  const extra = await callFailing(alice, 'search', { query: 'x', colour: 'blue' });
  assert.equal(extra.message, "unexpected argument 'colour'");
  await assert.rejects(alice.callTool({ name: 'no_such_tool', arguments: {} }), /Unknown tool/);
});

test('buzz mcp --help says what it is, on stdout', () => {
  const r = spawnSync(binary, ['mcp', '--help'], { encoding: 'utf8' });
  assert.equal(r.status, 0);
  assert.match(r.stdout, /Model Context Protocol/);
  const bad = spawnSync(binary, ['mcp', '--bogus'], { encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.equal(bad.stdout, '');
});

// Raw lines, past the SDK: what a broken client would send.
test('a malformed line gets a parse error and the server keeps serving', async () => {
  const server = spawn(binary, ['mcp'], { env: mcpEnv(randomBytes(32).toString('hex')), stdio: ['pipe', 'pipe', 'ignore'] });
  const lines = createInterface({ input: server.stdout })[Symbol.asyncIterator]();
  const next = async () => JSON.parse((await lines.next()).value);
  server.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",' +
                     '"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}\n');
  assert.equal((await next()).result.protocolVersion, '2025-06-18');
  server.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  server.stdin.write('{"jsonrpc": "2.0", "id": 2, "method": \n');
  assert.deepEqual(await next(), { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: not JSON' } });
  server.stdin.write('[1,2]\n');
  assert.equal((await next()).error.code, -32600);
  server.stdin.write('{"jsonrpc":"2.0","id":"x","method":"resources/list"}\n');
  assert.deepEqual(await next(), { jsonrpc: '2.0', id: 'x', error: { code: -32601, message: 'Method not found: resources/list' } });
  server.stdin.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
  assert.deepEqual(await next(), { jsonrpc: '2.0', id: 3, result: {} });
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.stdin.end();
  assert.equal(await exited, 0, 'EOF on stdin ends the server cleanly');
});
