// A huddle's audio, loaded only when someone joins one (build.mjs makes it
// app/huddle.js, so the channel's first render never pays for it).
// Microphone -> Web Audio at 48 kHz -> WebCodecs AudioEncoder (Opus, 20 ms) ->
// v2 frames (docs/reference/huddle.md §4) on /huddle/{channel}/audio; frames from the others
// -> one AudioDecoder per peer index -> played through Web Audio.
const VERSION = 2;
const RATE = 48000;
const ENCODER = { codec: 'opus', sampleRate: RATE, numberOfChannels: 1, bitrate: 32000, opus: { frameDuration: 20000, format: 'opus' } };
const DECODER = { codec: 'opus', sampleRate: RATE, numberOfChannels: 1 };
const SPEAKING_DBOV = -50;  // louder than this, and not DTX: shown as speaking
const SPEAKING_MS = 400;
const JITTER_S = 0.08;      // playback starts this far ahead, so late frames still play in order

// What the tests read: frames sent, received and decoded by this page, and
// when (Date.now()) it was last admitted, sent its first frame after that, and
// got the first frame since `first` was last zeroed (`clicked`, the Join
// button's last click, is set by huddle.jsx).
const counters = (window.__buzzHuddle = { sent: 0, received: 0, decoded: 0, admitted: 0, firstSent: 0, first: 0, ...window.__buzzHuddle });

// The relay's refusals (§3.3), in words; the relay's own text follows in brackets.
export function explain(error) {
  const m = error.message ?? '';
  const words = {
    room_full: 'This huddle is full (25 people).',
    room_ended: 'This huddle has ended.',
    upgrade_required: `This huddle uses audio protocol v${error.pinned_version}, this page speaks v${error.requested_version}.`,
    unsupported_version: `The relay does not speak this page's audio protocol (v${VERSION}).`,
  }[error.code] ?? {
    'not a member': 'You are not a member of this channel, so you cannot join its huddle.',
    'huddle has ended': 'This huddle has ended.',
    'auth failed': 'The relay did not accept your sign-in for the huddle.',
    'restricted: not a relay member': 'You are not a member of this relay.',
  }[m] ?? 'The relay refused to let you in.';
  return `${words} (${m})`;
}

// Why this browser cannot join a huddle, or '' when it can.
export async function opusMissing() {
  if (typeof AudioEncoder === 'undefined' || typeof AudioDecoder === 'undefined') {
    return 'This browser has no WebCodecs audio (AudioEncoder/AudioDecoder), so it cannot join huddles. Try a recent Chrome, Edge or Firefox.';
  }
  const [enc, dec] = await Promise.all([AudioEncoder.isConfigSupported(ENCODER), AudioDecoder.isConfigSupported(DECODER)])
    .catch(() => [{}, {}]);
  return enc.supported && dec.supported ? '' : 'This browser cannot encode or decode Opus audio with WebCodecs, so it cannot join huddles.';
}

const dbov = (samples) => {
  let sum = 0;
  for (const s of samples) sum += s * s;
  const rms = Math.sqrt(sum / samples.length);
  return rms > 0 ? Math.max(-127, Math.min(0, Math.round(20 * Math.log10(rms)))) : -127;
};
// §4.2: a level outside −127…0 is read as silence.
const clampLevel = (b) => { const v = b > 127 ? b - 256 : b; return v > 0 || v < -127 ? -127 : v; };

// Joins the huddle channel `channel` (announced in `parent`), once
// opusMissing() said it can. onChange gets
// {status: 'connecting'|'in'|'ended', error, peers: [{index, pubkey, speaking}], muted,
//  recording: {by} or null (the relay keeps everyone's audio: docs/reference/huddle.md §11),
//  notice: a refused recording control, in the relay's words}.
export async function joinHuddle({ relayUrl, channel, parent, signer, onChange }) {
  const state = { status: 'connecting', error: '', peers: new Map(), muted: false, recording: null, notice: '' };
  const spoke = new Map();  // peer index -> when it last spoke (ms)
  let me = -1;
  const emit = () => {
    const now = Date.now();
    onChange({ ...state, peers: [...state.peers].map(([index, pubkey]) => ({ index, pubkey, speaking: now - (spoke.get(index) ?? 0) < SPEAKING_MS })) });
  };
  const fail = (error) => { state.error = error; stop(); };

  let mic, ctx, ws, encoder, capture, tick;
  const decoders = new Map();  // peer index -> {decoder, playAt}
  let stopped = false;
  function stop() {
    if (stopped) return;
    stopped = true;
    state.status = 'ended';
    clearInterval(tick);
    if (ws?.readyState === 1) ws.send(JSON.stringify({ type: 'leave' }));
    ws?.close();
    mic?.getTracks().forEach((t) => t.stop());
    capture?.disconnect();
    if (encoder?.state !== 'closed') encoder?.close();
    for (const d of decoders.values()) if (d.decoder.state !== 'closed') d.decoder.close();
    ctx?.close();
    emit();
  }

  ctx = new AudioContext({ sampleRate: RATE });
  try {
    [mic] = await Promise.all([
      navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true } }),
      ctx.resume()]);
  } catch (e) {
    fail(`No microphone: ${e.message}`);
    return { leave() {}, mute() {} };
  }

  // Sending: each encoded 20 ms packet behind its v2 header.
  let seq = 0;
  let level = -127;
  encoder = new AudioEncoder({
    output: (chunk) => {
      if (ws?.readyState !== 1 || state.status !== 'in') return;
      const frame = new Uint8Array(8 + chunk.byteLength);
      const view = new DataView(frame.buffer);
      view.setUint16(0, seq & 0xffff);
      seq = (seq + 1) & 0xffff;
      view.setUint32(2, Math.round(chunk.timestamp * RATE / 1e6) >>> 0);
      view.setInt8(6, level);
      view.setUint8(7, 0);
      chunk.copyTo(frame.subarray(8));
      ws.send(frame);
      if (counters.firstSent < counters.admitted) counters.firstSent = Date.now();
      counters.sent++;
    },
    error: (e) => fail(`The audio encoder failed: ${e.message}`),
  });
  encoder.configure(ENCODER);

  // The microphone's samples, resampled to 48 kHz by the context. A
  // ScriptProcessor (deprecated, but in every browser) because an AudioWorklet
  // would need its module as one more embedded file; 1024 samples is 21 ms.
  const source = ctx.createMediaStreamSource(mic);
  capture = ctx.createScriptProcessor(1024, 1, 1);
  let samples = 0;
  // Encoding starts with the microphone, before admission (its packets are
  // dropped until then), so the first frame goes out at once when admitted.
  capture.onaudioprocess = (e) => {
    if (state.status === 'ended' || state.muted) return;
    const data = new Float32Array(e.inputBuffer.getChannelData(0));
    level = dbov(data);
    if (me >= 0 && level > SPEAKING_DBOV) spoke.set(me, Date.now());
    encoder.encode(new AudioData({ format: 'f32-planar', sampleRate: RATE, numberOfFrames: data.length, numberOfChannels: 1,
      timestamp: Math.round(samples * 1e6 / RATE), data }));
    samples += data.length;
  };
  source.connect(capture);
  capture.connect(ctx.destination);  // a ScriptProcessor runs only when connected; it writes silence

  // Receiving: [index][seq u16][ts u32][level i8][flags u8][opus].
  const decoderFor = (index) => {
    let d = decoders.get(index);
    if (d) return d;
    d = { playAt: 0 };
    d.decoder = new AudioDecoder({
      output: (audio) => {
        counters.decoded++;
        const buffer = ctx.createBuffer(1, audio.numberOfFrames, audio.sampleRate);
        const pcm = new Float32Array(audio.numberOfFrames);
        audio.copyTo(pcm, { planeIndex: 0, format: 'f32-planar' });
        audio.close();
        buffer.copyToChannel(pcm, 0);
        const play = ctx.createBufferSource();
        play.buffer = buffer;
        play.connect(ctx.destination);
        d.playAt = Math.max(d.playAt, ctx.currentTime + JITTER_S);
        play.start(d.playAt);
        d.playAt += buffer.duration;
      },
      error: () => decoders.delete(index),  // a broken stream: a fresh decoder for its next frame
    });
    d.decoder.configure(DECODER);
    decoders.set(index, d);
    return d;
  };
  const forget = (index) => {
    const d = decoders.get(index);
    if (d?.decoder.state !== 'closed') d?.decoder.close();
    decoders.delete(index);
    spoke.delete(index);
  };
  const receive = (bytes) => {
    if (bytes.length < 10) return;
    counters.received++;
    counters.first ||= Date.now();
    const index = bytes[0];
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    if (!(bytes[8] & 1) && clampLevel(bytes[7]) > SPEAKING_DBOV) spoke.set(index, Date.now());
    decoderFor(index).decoder.decode(new EncodedAudioChunk({ type: 'key', timestamp: Math.round(view.getUint32(2) * 1e6 / RATE), data: bytes.subarray(9) }));
  };

  ws = new WebSocket(`${relayUrl.replace(/\/$/, '')}/huddle/${channel}/audio`);
  ws.binaryType = 'arraybuffer';
  ws.onmessage = async (m) => {
    if (typeof m.data !== 'string') return receive(new Uint8Array(m.data));
    const msg = JSON.parse(m.data);
    if (msg.type === 'challenge') {
      const event = await signer.sign({ kind: 22242, created_at: Math.floor(Date.now() / 1000), content: '',
        tags: [['relay', relayUrl], ['challenge', msg.challenge]] });
      ws.send(JSON.stringify({ type: 'auth', event, parent_channel_id: parent, protocol_version: VERSION }));
    } else if (msg.type === 'joined') {
      // A known index now naming someone else: that stream starts afresh (§4.3).
      if (state.peers.get(msg.peer_index) !== msg.pubkey) forget(msg.peer_index);
      if (msg.pubkey === signer.pubkey && state.status === 'connecting') {
        me = msg.peer_index;
        state.peers = new Map(msg.peers.map((p) => [p.peer_index, p.pubkey]));
        state.status = 'in';
        counters.admitted = Date.now();
      }
      state.peers.set(msg.peer_index, msg.pubkey);
      emit();
    } else if (msg.type === 'left') {
      state.peers.delete(msg.peer_index);
      forget(msg.peer_index);
      emit();
    } else if (msg.type === 'recording') {
      state.recording = msg.recording ? { by: msg.started_by } : null;
      state.notice = '';
      emit();
    } else if (msg.type === 'error' && state.status === 'in') {
      // A refused recording control (§11.1): the call goes on.
      state.notice = msg.message ?? 'The relay refused.';
      emit();
    } else if (msg.type === 'error') {
      fail(explain(msg));
    }
  };
  ws.onclose = () => { if (!stopped) fail(state.status === 'in' ? 'The huddle connection closed.' : 'The relay closed the huddle connection before letting you in.'); };
  // Speaking marks come and fade: a new render only when who speaks changed.
  let speaking = '';
  tick = setInterval(() => {
    const now = Date.now();
    const next = [...spoke].filter(([, at]) => now - at < SPEAKING_MS).map(([i]) => i).join();
    if (next !== speaking) { speaking = next; emit(); }
  }, 100);
  emit();
  return {
    leave: stop,
    mute(on) { state.muted = on; emit(); },
    // Asks the relay to start or stop recording; only the channel's owners and admins may.
    record(on) { ws.send(JSON.stringify({ type: 'recording', action: on ? 'start' : 'stop' })); },
  };
}
