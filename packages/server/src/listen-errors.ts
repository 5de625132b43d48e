/**
 * What a person starting the server reads when it cannot listen, or is told to listen somewhere Portico does not
 * read: one line that names the address and the variable to change, never a stack trace.
 */

/** `:8080` → `8080`; `127.0.0.1:8080` stays. */
const shown = (host: string, port: number) => (host === '' || host === '0.0.0.0' || host === '::' ? `port ${port}` : `${host}:${port}`);

/** Why listening on `host:port` failed, for a person; undefined when the error is not about the address. */
export function listenFailure(error: unknown, host: string, port: number, variable = 'SERVER_ADDRESS'): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const next = `${variable}=${host && host !== '0.0.0.0' && host !== '::' ? host : ''}:${port + 1}`;
  if (code === 'EADDRINUSE') {
    return `${shown(host, port)} is already in use (${variable}): stop what listens there, or start with another address, e.g. ${next}`;
  }
  if (code === 'EACCES') return `${shown(host, port)} may not be opened by this user (${variable}): use a port above 1023, e.g. ${next}`;
  if (code === 'EADDRNOTAVAIL') return `${host} is not an address of this machine (${variable}): use :${port} to listen on all of them`;
  return undefined;
}

/**
 * `PORT` is what many platforms and tutorials set, but Portico's listen address is SERVER_ADDRESS (contract §10).
 * Set alone, it would be silently ignored: the start is refused with the line to use instead.
 */
export function portVariableRefusal(env: NodeJS.ProcessEnv): string | undefined {
  const port = env.PORT?.trim();
  if (!port || env.SERVER_ADDRESS !== undefined) return undefined;
  return `PORT=${port} is not read by Portico: its listen address is SERVER_ADDRESS (default :8080), so start with SERVER_ADDRESS=:${port}`;
}
