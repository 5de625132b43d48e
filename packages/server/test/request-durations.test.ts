import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { requestDurations } from '../src/metrics/request-durations.js';

// The request-duration histogram is counted in plain fields, not by prom-client's Histogram; a scrape must not
// be able to tell: same samples, same values, same label order, for every bucket edge.

const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const name = 'portico_http_request_duration_seconds';
const help = 'Time from receiving a request to the end of its response, by route id and method.';
const observations: [{ route: string; method: string }, number][] = [
  [{ route: 'canI', method: 'GET' }, 0.0004],
  [{ route: 'canI', method: 'GET' }, 0.005],
  [{ route: 'canI', method: 'GET' }, 0.0050001],
  [{ route: 'canI', method: 'GET' }, 0.3],
  [{ route: 'canI', method: 'GET' }, 10],
  [{ route: 'canI', method: 'GET' }, 42],
  [{ route: 'createInstance', method: 'POST' }, 0.07],
  [{ route: 'canI', method: 'HEAD' }, 0],
];

function both() {
  const ours = new Registry();
  const theirs = new Registry();
  const durations = requestDurations(ours, { name, help, buckets });
  const histogram = new Histogram({ name, help, labelNames: ['route', 'method'] as const, buckets, registers: [theirs] });
  return {
    ours,
    theirs,
    observe(labels: { route: string; method: string }, seconds: number) {
      durations.series({ route: labels.route, method: labels.method }).observe(seconds);
      histogram.observe(labels, seconds);
    },
  };
}

describe('the request-duration histogram', () => {
  it('reads as prom-client\'s own Histogram would, in the text format and as JSON', async () => {
    const { ours, theirs, observe } = both();
    for (const [labels, seconds] of observations) observe(labels, seconds);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
  });

  it('keeps one series per label set, however often it is asked for', async () => {
    const { ours, theirs, observe } = both();
    for (let i = 0; i < 3; i++) for (const [labels, seconds] of observations) observe({ ...labels }, seconds);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
