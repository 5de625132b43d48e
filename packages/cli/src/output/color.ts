/** ANSI styles, or identity functions when colours are off (not a TTY, or NO_COLOR). */
export interface Palette {
  bold(s: string): string;
  dim(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  red(s: string): string;
  cyan(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;
const plain = (s: string) => s;

export const palette = (enabled: boolean): Palette =>
  enabled
    ? { bold: wrap(1, 22), dim: wrap(2, 22), green: wrap(32, 39), yellow: wrap(33, 39), red: wrap(31, 39), cyan: wrap(36, 39) }
    : { bold: plain, dim: plain, green: plain, yellow: plain, red: plain, cyan: plain };

/** Health and yes/no words in the colour a reader expects. */
export function statusColor(p: Palette, value: string): string {
  switch (value) {
    case 'Healthy':
    case 'Active':
    case 'yes':
      return p.green(value);
    case 'Progressing':
    case 'Unknown':
    case 'Inactive':
      return p.yellow(value);
    case 'Degraded':
    case 'Unhealthy':
    case 'no':
      return p.red(value);
    default:
      return value;
  }
}
