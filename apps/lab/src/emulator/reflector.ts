// Runs inside a link's network namespace (started with `ip netns exec`): every UDP datagram that
// crossed the namespace's shaped veth goes straight back to the root-side socket, and TCP bulk flows
// end here, their bytes counted. Prints `ready <udpPort> <tcpPort>`, then `tcp <peerPort> <bytes> <epochMs>`
// every 250 ms for each flow that received something: the time is taken here, as the parent may read
// the line late.
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

const [nsAddress, rootAddress, rootPortText] = process.argv.slice(2);
const rootPort = Number(rootPortText);
if (!nsAddress || !rootAddress || !Number.isInteger(rootPort)) {
  process.stderr.write('usage: reflector <namespace address> <root address> <root port>\n');
  process.exit(2);
}

const udp = createSocket('udp4');
udp.on('message', (msg) => udp.send(msg, rootPort, rootAddress));

const received = new Map<number, number>();
const tcp = createServer((socket) => {
  const port = socket.remotePort ?? 0;
  socket.on('data', (chunk: Buffer) => received.set(port, (received.get(port) ?? 0) + chunk.length));
  socket.on('error', () => socket.destroy());
});

udp.bind(0, nsAddress, () => {
  tcp.listen(0, nsAddress, () => {
    const tcpAddress = tcp.address();
    process.stdout.write(`ready ${udp.address().port} ${typeof tcpAddress === 'object' && tcpAddress ? tcpAddress.port : 0}\n`);
  });
});

let reported = new Map<number, number>();
setInterval(() => {
  const now = Date.now();
  for (const [port, bytes] of received) if (reported.get(port) !== bytes) process.stdout.write(`tcp ${port} ${bytes} ${now}\n`);
  reported = new Map(received);
}, 250);

// The parent closing our stdin means it is gone: do not outlive it.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
