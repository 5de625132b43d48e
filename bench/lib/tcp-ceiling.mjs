// Yardstick for fan-out benchmarks: how many plain TCP writes per second one Node process makes to N loopback
// sockets (drained by a separate reader process, which is what the clients are), and the CPU each write costs.
// A WebSocket fan-out cannot beat one write per socket per flush, so this is its ceiling on the same machine.
// Run as a child (startChild) with [sockets, bytes, durationMs]: answers { writesPerSec, cpuUsPerWrite } when done.
import { fork } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);

if (args[0] === 'reader') {
  const server = net.createServer((s) => s.on('data', () => undefined));
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.on('disconnect', () => process.exit(0));
} else {
  const sockets = Number(args[0] ?? 2000);
  const size = Number(args[1] ?? 2700);
  const durationMs = Number(args[2] ?? 2000);
  const reader = fork(fileURLToPath(import.meta.url), ['reader'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { port } = await new Promise((resolve) => reader.once('message', resolve));
  const open = [];
  for (let i = 0; i < sockets; i++) {
    open.push(
      await new Promise((resolve, reject) => {
        const s = net.connect(port, '127.0.0.1', () => resolve(s));
        s.setNoDelay(true);
        s.once('error', reject);
      }),
    );
  }
  const chunk = Buffer.alloc(size, 0x78);
  let writes = 0;
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((resolve) => {
    // 40 sockets a step (one project's members), yielding to the loop between steps like a server would
    const step = () => {
      for (let k = 0; k < 40; k++, writes++) open[next++ % sockets].write(chunk);
      if (performance.now() - t0 < durationMs) setImmediate(step);
      else resolve();
    };
    step();
  });
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  for (const s of open) s.destroy();
  reader.kill();
  process.send({ writesPerSec: writes / seconds, cpuUsPerWrite: (cpu.user + cpu.system) / writes, sockets, size });
  process.on('message', (m) => m === 'stop' && process.exit(0));
}
