import { spawn } from 'node:child_process';

/** Opens `url` in the user's browser ($BROWSER, else the platform's opener); failures are ignored, the URL is printed anyway. */
export function openBrowser(url: string, env: NodeJS.ProcessEnv = process.env): void {
  const [cmd, args] = env.BROWSER
    ? [env.BROWSER, [url]]
    : process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // no opener on this machine: the user follows the printed URL
  }
}
