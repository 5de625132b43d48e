import type { App } from '../app.js';

/** On stderr, so stdout stays the export itself: redrawn in place at most every 200 ms. */
function exportProgress(app: App, noun: string) {
  let rows = 0;
  let bytes = 0;
  let shownAt = 0;
  const started = Date.now();
  const line = () => `exported ${rows.toLocaleString('en-US')} ${noun}, ${(bytes / 1e6).toFixed(1)} MB, ${((Date.now() - started) / 1000).toFixed(1)} s`;
  return {
    add(text: string) {
      bytes += Buffer.byteLength(text);
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) rows += 1;
      if (Date.now() - shownAt >= 200) {
        shownAt = Date.now();
        app.io.err(`\r${line()}`);
      }
    },
    done(headerLines: number) {
      rows -= headerLines;
      app.io.err(`\r${line()}\n`);
    },
  };
}

/**
 * Copies a streamed export to stdout as it arrives (nothing held beyond one chunk), with a running count of
 * lines (`noun`, less `headerLines`) on stderr.
 */
export async function exportToStdout(app: App, body: ReadableStream<Uint8Array>, noun: string, headerLines: number): Promise<void> {
  const progress = exportProgress(app, noun);
  const decoder = new TextDecoder();
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    const text = decoder.decode(chunk, { stream: true });
    progress.add(text);
    app.io.out(text);
  }
  const rest = decoder.decode();
  if (rest) app.io.out(rest);
  progress.done(headerLines);
}
