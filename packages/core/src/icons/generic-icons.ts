/**
 * Portico's own generic icons (contract §11.5), drawn for Portico: simple line drawings on a 24×24 grid in
 * `currentColor`, so a console tints them like its text. An icon registry ConfigMap may replace any of them by
 * using the same slug.
 */
const icon = (title: string, body: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" fill="none" stroke="currentColor" stroke-width="1.75" stroke-linecap="round" stroke-linejoin="round"><title>${title}</title>${body}</svg>`;

const drawn = {
  // A cylinder: the usual sign for stored records.
  database: icon('Database', '<ellipse cx="12" cy="5.5" rx="7" ry="2.5"/><path d="M5 5.5v13c0 1.4 3.1 2.5 7 2.5s7-1.1 7-2.5v-13"/><path d="M5 12c0 1.4 3.1 2.5 7 2.5s7-1.1 7-2.5"/>'),
  // A memory chip with a spark: fast, short-lived data.
  cache: icon('Cache', '<rect x="5" y="5" width="14" height="14" rx="2"/><path d="M9 2v3M15 2v3M9 19v3M15 19v3M2 9h3M2 15h3M19 9h3M19 15h3"/><path d="M12.5 8.5 10 12.5h4l-2.5 3"/>'),
  // Messages waiting in line, taken from the front.
  queue: icon('Queue', '<rect x="3" y="6" width="4" height="12" rx="1"/><rect x="9" y="6" width="4" height="12" rx="1"/><rect x="15" y="6" width="4" height="12" rx="1" stroke-dasharray="2 2"/><path d="M21 12h1.5"/>'),
  // A globe: something served on the web.
  web: icon('Web', '<circle cx="12" cy="12" r="9"/><ellipse cx="12" cy="12" rx="3.8" ry="9"/><path d="M3.5 9h17M3.5 15h17"/>'),
  // A clock with a run mark: work that runs to completion or on a schedule.
  job: icon('Job', '<circle cx="12" cy="13" r="8"/><path d="M12 9v4l2.5 2.5"/><path d="M9.5 2.5h5"/><path d="M19 5l1.5 1.5"/>'),
  // Three linked nodes.
  network: icon('Network', '<circle cx="12" cy="5" r="2.5"/><circle cx="5" cy="18" r="2.5"/><circle cx="19" cy="18" r="2.5"/><path d="M10.8 7.2 6.2 15.8M13.2 7.2l4.6 8.6M7.5 18h9"/>'),
  // A drive: a volume that keeps files.
  storage: icon('Storage', '<rect x="3" y="13" width="18" height="7" rx="2"/><path d="M5 13 7.5 5h9l2.5 8"/><path d="M7 16.5h5"/><circle cx="17" cy="16.5" r="0.6"/>'),
  // Two server units in a rack.
  compute: icon('Compute', '<rect x="3" y="4" width="18" height="7" rx="1.5"/><rect x="3" y="13" width="18" height="7" rx="1.5"/><path d="M7 7.5h.01M7 16.5h.01M11 7.5h6M11 16.5h6"/>'),
  // A key: credentials and secrets.
  secret: icon('Secret', '<circle cx="8" cy="15" r="4"/><path d="M11 12 20 3M16.5 6.5l2.5 2.5M14 9l2 2"/>'),
  // A chart line in a frame: metrics and dashboards.
  monitoring: icon('Monitoring', '<rect x="3" y="4" width="18" height="16" rx="2"/><path d="M6.5 15.5 10 11l3 3 4.5-6"/>'),
  // Braces: an API.
  api: icon('API', '<path d="M9 4H8a2 2 0 0 0-2 2v3.5a2.5 2.5 0 0 1-2 2.5 2.5 2.5 0 0 1 2 2.5V18a2 2 0 0 0 2 2h1"/><path d="M15 4h1a2 2 0 0 1 2 2v3.5a2.5 2.5 0 0 0 2 2.5 2.5 2.5 0 0 0-2 2.5V18a2 2 0 0 1-2 2h-1"/>'),
  // A box: a packaged application or container.
  container: icon('Container', '<path d="M12 2.5 20.5 7v10L12 21.5 3.5 17V7z"/><path d="M3.5 7 12 11.5 20.5 7M12 11.5v10"/>'),
  // A shield: security and policy.
  security: icon('Security', '<path d="M12 2.5 19.5 5.5v6c0 4.5-3.2 8.3-7.5 10-4.3-1.7-7.5-5.5-7.5-10v-6z"/><path d="m8.8 12 2.2 2.2 4.2-4.4"/>'),
  // A card: payments.
  payment: icon('Payment', '<rect x="2.5" y="5" width="19" height="14" rx="2"/><path d="M2.5 9.5h19M6 15h4"/>'),
  // A page with lines: documents and static content.
  document: icon('Document', '<path d="M6 2.5h8l4 4v15H6z"/><path d="M14 2.5v4h4M9 11h6M9 14.5h6M9 18h4"/>'),
};

/**
 * Other names catalogs commonly give the same ideas (the sample catalog uses several), served with the same
 * drawing, so an RGD's `icon` annotation finds one without a registry.
 */
const aliases: Record<string, keyof typeof drawn> = {
  globe: 'web',
  server: 'compute',
  clock: 'job',
  zap: 'cache',
  inbox: 'queue',
  archive: 'storage',
  shield: 'security',
  activity: 'monitoring',
  layers: 'container',
  'credit-card': 'payment',
  'file-text': 'document',
  key: 'secret',
};

export const genericIcons: Readonly<Record<string, string>> = Object.freeze({
  ...drawn,
  ...Object.fromEntries(Object.entries(aliases).map(([alias, name]) => [alias, drawn[name]])),
});
