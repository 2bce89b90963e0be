// `buzz serve` for a test, and the moment it listens. A test picks a free port
// and the relay binds it later, so another test's relay may take the port
// first and answer /health in its place: a relay is up once it has said on
// its stdout that it listens on that port. No dependencies: tests/web uses it too.
import { spawn } from 'node:child_process';

// The child, with `listening`: a promise that it said so within 20 s (rejected
// if it exits or stays silent). Its stdout is read to the end; stderr is ours.
export function spawnRelay(binary, args, { env = process.env } = {}) {
  const proc = spawn(binary, ['serve', ...args], { stdio: ['ignore', 'pipe', 'inherit'], env });
  const bind = args[args.indexOf('--bind') + 1];
  proc.listening = new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`relay did not say it listens on ${bind} within 20 s`)), 20000);
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk) => {
      if (out === null) return;
      out += chunk;
      if (out.includes(` listening on ${bind} `)) { out = null; clearTimeout(timer); resolve(); }
    });
    proc.once('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`relay exited (${code ?? signal}) before it listened on ${bind}`)); });
  });
  proc.listening.catch(() => {});  // an exit after listening is the caller's business
  return proc;
}
