/**
 * The admin password as a person needs it after `npm start` or a reset: framed so it stands out from the log,
 * with the lines to paste (an environment variable the README's tour reads, and the CLI sign-in).
 */
export function passwordBox(password: string, url: string): string {
  const lines = [
    'Portico admin password (shown at each start until the admin signs in; kept in the portico-initial-admin-secret Secret until changed):',
    '',
    `    ${password}`,
    '',
    'Use it in this shell:',
    `    export PORTICO_PASSWORD='${password}'`,
    `    printenv PORTICO_PASSWORD | npx portico login ${url} --username admin --password-stdin`,
  ];
  const width = Math.max(...lines.map((l) => l.length));
  const bar = '─'.repeat(width + 2);
  return ['', `┌${bar}┐`, ...lines.map((l) => `│ ${l.padEnd(width)} │`), `└${bar}┘`, ''].join('\n') + '\n';
}
