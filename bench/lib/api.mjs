// JSON calls to a Portico under benchmark (setup steps, not measurements): `call` answers the status and the
// parsed body, `ok` throws on anything but a 2xx.
export async function call(url, method, route, token, body) {
  const res = await fetch(`${url}${route}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body && JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, raw: text };
}

export async function ok(url, method, route, token, body) {
  const res = await call(url, method, route, token, body);
  if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${res.raw}`);
  return res.body;
}
