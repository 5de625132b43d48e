import type { Io } from './io.js';
import { palette, statusColor } from './output/color.js';
import { truncate } from './output/table.js';

interface ProgressState {
  readyResources?: number;
  totalResources?: number;
  phase?: string;
  message?: string;
  health?: string;
}

/** `2/4 [#####-----]` (the count first, so a narrow terminal cuts the bar, not the numbers); "" when the total is unknown. */
export function progressBar(ready: number, total: number, width = 20): string {
  if (total <= 0) return '';
  const filled = Math.round((Math.min(ready, total) / total) * width);
  return `${ready}/${total} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

function progressLine(label: string, s: ProgressState, color = false): string {
  const p = palette(color);
  const parts = [label];
  if (s.health) parts.push(statusColor(p, s.health));
  if (s.totalResources !== undefined) parts.push(progressBar(s.readyResources ?? 0, s.totalResources));
  if (s.phase) parts.push(s.phase);
  if (s.message) parts.push(`- ${s.message}`);
  return parts.join('  ');
}

/**
 * On a terminal one line redrawn in place; otherwise a plain line each time something a reader cares about
 * changes (counts, phase, health), so logs stay short.
 */
export function progressReporter(io: Io, label: string) {
  const state: ProgressState = {};
  let lastPlain = '';
  let drawn = false;
  return {
    update(change: ProgressState) {
      Object.assign(state, change);
      if (io.stdoutTTY) {
        const line = progressLine(label, state, false);
        const shown = io.columns ? truncate(line, io.columns - 1) : line;
        io.out(`\r\u001b[2K${shown}`);
        drawn = true;
      } else {
        const key = `${state.readyResources}/${state.totalResources} ${state.phase} ${state.health}`;
        if (key === lastPlain) return;
        lastPlain = key;
        io.out(`${progressLine(label, state)}\n`);
      }
    },
    /** Leaves the terminal line before the final message. */
    done() {
      if (drawn) io.out('\n');
      drawn = false;
    },
  };
}
