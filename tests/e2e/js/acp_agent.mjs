// An ACP agent for the `buzz acp` tests, built on the official ACP SDK
// (@agentclientprotocol/sdk) over stdio. It answers each prompt through the
// MCP server the harness hands it in session/new (`buzz mcp`, via the
// official MCP SDK's client): a reply in the thread of the last event, "echo:
// <content>". Words in the content steer it, to play the agents a harness
// must survive:
//   "please wait <ms>"  works that long before answering (a busy agent)
//   "please hang"       says nothing until cancelled (a hung agent)
//   "please crash"      exits with status 3, once per marker directory
//   "please garble"     writes a line that is not JSON-RPC on stdout, once
// Every prompt is logged as a JSON line to $ACP_AGENT_LOG: pid, session, the
// monotonic time it arrived and ended (ns), and the prompt text.
import * as acp from '@agentclientprotocol/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';

const log = (entry) => {
  if (process.env.ACP_AGENT_LOG) appendFileSync(process.env.ACP_AGENT_LOG, JSON.stringify({ pid: process.pid, ...entry }) + '\n');
};
const now = () => process.hrtime.bigint().toString();
// True the first time `name` is asked for in the marker directory.
const firstTime = (name) => {
  const marker = join(process.env.ACP_MARKER_DIR ?? '/tmp', name);
  if (existsSync(marker)) return false;
  writeFileSync(marker, String(process.pid));
  return true;
};

let mcp = null;
let mcpServer = null;
const cancels = new Map();  // sessionId → resolve(cancelled)
let sessions = 0;

async function tools() {
  if (!mcp) {
    const env = { PATH: process.env.PATH };
    for (const { name, value } of mcpServer.env) env[name] = value;
    mcp = new Client({ name: 'acp-test-agent', version: '1.0.0' });
    await mcp.connect(new StdioClientTransport({ command: mcpServer.command, args: mcpServer.args, env, stderr: 'inherit' }));
  }
  return mcp;
}

const last = (text, re) => [...text.matchAll(re)].at(-1)?.[1];

async function answer(text) {
  const channel = last(text, /^Channel: (?:.* \(#)?([0-9a-f-]{36})\)?$/gm);
  const event = last(text, /^Event ID: ([0-9a-f]{64})$/gm);
  const content = last(text, /^Content: (.*)$/gm);
  const r = await (await tools()).callTool({ name: 'send_message', arguments: { channel, content: `echo: ${content}`, reply_to: event } });
  if (r.isError) throw new Error(r.content[0].text);
}

const app = acp.agent({ name: 'acp-test-agent' })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {}, agentInfo: { name: 'acp-test-agent', version: '1.0.0' },
  }))
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    mcpServer ??= params.mcpServers[0];
    return { sessionId: `s${process.pid}-${++sessions}` };
  })
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => cancels.get(params.sessionId)?.())
  .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
    const text = params.prompt.map((b) => b.text).join('');
    const arrived = now();
    const content = last(text, /^Content: (.*)$/gm) ?? '';
    const cancelled = new Promise((resolve) => cancels.set(params.sessionId, () => resolve('cancelled')));
    let stopReason = 'end_turn';
    try {
      if (content.includes('please crash') && firstTime('crash')) {
        log({ session: params.sessionId, arrived, prompt: text, crashed: true });
        process.exit(3);
      }
      if (content.includes('please garble') && firstTime('garble')) {
        log({ session: params.sessionId, arrived, prompt: text, garbled: true });
        process.stdout.write('this is not JSON-RPC\n');
        stopReason = await cancelled;  // the harness stops listening to us anyway
      } else if (content.includes('please hang') && firstTime('hang')) {
        stopReason = await cancelled;
      } else {
        const wait = /please wait (\d+)/.exec(content);
        if (wait) {
          stopReason = await Promise.race([cancelled, new Promise((r) => setTimeout(() => r('end_turn'), Number(wait[1])))]);
        }
        if (stopReason === 'end_turn') await answer(text);
      }
    } finally {
      cancels.delete(params.sessionId);
      log({ session: params.sessionId, arrived, ended: now(), stopReason, prompt: text });
    }
    return { stopReason };
  });

app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
