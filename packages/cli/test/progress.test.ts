import { describe, expect, it } from 'vitest';
import type { Io } from '../src/index.js';
import { progressBar, progressReporter } from '../src/progress.js';

const fakeIo = (tty: boolean) => {
  let text = '';
  const io: Io = { out: (s) => void (text += s), err: () => undefined, stdin: process.stdin, env: {}, stdoutTTY: tty, interactive: false, color: false, columns: tty ? 60 : undefined };
  return { io, text: () => text };
};

describe('progress', () => {
  it('draws ready/total with a proportional bar', () => {
    expect(progressBar(1, 4, 8)).toBe('1/4 [##------]');
    expect(progressBar(4, 4, 8)).toBe('4/4 [########]');
    expect(progressBar(0, 0)).toBe('');
  });

  it('prints a plain line per change when not on a terminal', () => {
    const { io, text } = fakeIo(false);
    const p = progressReporter(io, 'Postgres/db');
    p.update({ readyResources: 1, totalResources: 2, phase: 'Deploying' });
    p.update({ readyResources: 1, totalResources: 2, phase: 'Deploying', message: 'same counts' });
    p.update({ readyResources: 2, totalResources: 2, phase: 'Deploying' });
    p.done();
    const lines = text().trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(text()).not.toContain('\r');
  });

  it('redraws one line in place on a terminal, within its width', () => {
    const { io, text } = fakeIo(true);
    const p = progressReporter(io, 'Postgres/a-very-long-instance-name-in-a-namespace');
    p.update({ readyResources: 1, totalResources: 3, phase: 'Deploying', message: 'waiting for the volume to bind' });
    p.update({ readyResources: 2, totalResources: 3 });
    p.done();
    const frames = text().split('\r\u001b[2K').filter(Boolean);
    expect(frames).toHaveLength(2);
    for (const f of frames) expect([...f.trimEnd()].length).toBeLessThanOrEqual(59);
    expect(text().endsWith('\n')).toBe(true);
  });
});
