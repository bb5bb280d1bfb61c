/**
 * A call between two peer connections inside one page, fed by a drawn canvas and a tone, so a visitor
 * sees a real WebRTC call without a camera or microphone prompt.
 */
export interface LoopbackCall {
  caller: RTCPeerConnection;
  callee: RTCPeerConnection;
  remoteStream: Promise<MediaStream>;
  localStream: MediaStream;
  stop(): void;
}

export async function startLoopbackCall(): Promise<LoopbackCall> {
  const canvas = document.createElement('canvas');
  canvas.width = 640;
  canvas.height = 360;
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('This browser cannot draw the demo video (no 2D canvas).');
  let frame = 0;
  const draw = () => {
    frame++;
    const hue = (frame * 2) % 360;
    ctx.fillStyle = `hsl(${hue} 60% 35%)`;
    ctx.fillRect(0, 0, 640, 360);
    for (let k = 0; k < 24; k++) {
      ctx.fillStyle = `hsl(${(hue + k * 15) % 360} 80% 60%)`;
      const x = (Math.sin((frame + k * 20) / 30) * 0.5 + 0.5) * 600;
      const y = (Math.cos((frame + k * 13) / 25) * 0.5 + 0.5) * 320;
      ctx.fillRect(x, y, 40, 40);
    }
    ctx.fillStyle = '#fff';
    ctx.font = '28px sans-serif';
    ctx.fillText(`rtcscope demo ${new Date().toLocaleTimeString()}`, 20, 40);
  };
  const drawTimer = setInterval(draw, 1000 / 30);
  const video = canvas.captureStream(30);
  const audioCtx = new AudioContext();
  const osc = audioCtx.createOscillator();
  osc.frequency.value = 440;
  const gain = audioCtx.createGain();
  gain.gain.value = 0.05;
  const dest = audioCtx.createMediaStreamDestination();
  osc.connect(gain).connect(dest);
  osc.start();
  const localStream = new MediaStream([...video.getVideoTracks(), ...dest.stream.getAudioTracks()]);

  const caller = new RTCPeerConnection();
  const callee = new RTCPeerConnection();
  caller.onicecandidate = (e) => e.candidate && void callee.addIceCandidate(e.candidate);
  callee.onicecandidate = (e) => e.candidate && void caller.addIceCandidate(e.candidate);
  const remoteStream = new Promise<MediaStream>((resolve) => {
    callee.ontrack = (e) => e.streams[0] && resolve(e.streams[0]);
  });
  // Both sides send, as in a real call; the callee sends a copy of the same drawing and tone.
  const calleeStream = localStream.clone();
  for (const track of localStream.getTracks()) caller.addTrack(track, localStream);
  await caller.setLocalDescription(await caller.createOffer());
  await callee.setRemoteDescription(caller.localDescription!);
  for (const track of calleeStream.getTracks()) callee.addTrack(track, calleeStream);
  await callee.setLocalDescription(await callee.createAnswer());
  await caller.setRemoteDescription(callee.localDescription!);

  return {
    caller,
    callee,
    remoteStream,
    localStream,
    stop: () => {
      clearInterval(drawTimer);
      for (const t of [...localStream.getTracks(), ...calleeStream.getTracks()]) t.stop();
      osc.stop();
      void audioCtx.close();
      caller.close();
      callee.close();
    },
  };
}
