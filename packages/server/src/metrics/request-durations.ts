import type { Metric, Registry } from 'prom-client';

/** One route and method's durations: observing one is a few additions, with no labels hashed or checked. */
export interface DurationSeries {
  observe(seconds: number): void;
}

export interface RequestDurations {
  /** The series of these labels, made on first use; callers keep it (labels from small fixed sets only). */
  series(labels: Readonly<Record<string, string>>): DurationSeries;
}

interface Series extends DurationSeries {
  labels: Readonly<Record<string, string>>;
  /** Observations per bucket, not cumulative (the scrape adds them up); above the last bound: in `count` only. */
  perBucket: number[];
  count: number;
  sum: number;
}

/**
 * A Prometheus histogram of request durations, read by the registry like prom-client's own Histogram (the same
 * `_bucket`, `_sum` and `_count` samples, labels in the same order), but counted in plain fields: prom-client's
 * observe builds and checks a label object and hashes it into a string on every call, once per request.
 */
export function requestDurations(registry: Registry, opts: { name: string; help: string; buckets: readonly number[] }): RequestDurations {
  const bounds = [...opts.buckets].sort((a, b) => a - b);
  /** By label values (in the labels' order), so the same labels are always the same series. */
  const all = new Map<string, Series>();

  const valuesOf = (s: Series) => {
    // Buckets carry `exemplar: null` as prom-client's do (this histogram keeps no exemplars).
    const values: { labels: Record<string, string | number>; value: number; metricName: string; exemplar?: null }[] = [];
    let cumulative = 0;
    bounds.forEach((le, i) => {
      cumulative += s.perBucket[i]!;
      values.push({ labels: { le, ...s.labels }, value: cumulative, metricName: `${opts.name}_bucket`, exemplar: null });
    });
    values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${opts.name}_bucket`, exemplar: null });
    values.push({ labels: { ...s.labels }, value: s.sum, metricName: `${opts.name}_sum` });
    values.push({ labels: { ...s.labels }, value: s.count, metricName: `${opts.name}_count` });
    return values;
  };

  const metric = {
    name: opts.name,
    help: opts.help,
    type: 'histogram',
    aggregator: 'sum',
    get: async () => ({ name: opts.name, help: opts.help, type: 'histogram', aggregator: 'sum', values: [...all.values()].flatMap(valuesOf) }),
    // Zeroed rather than dropped: callers keep their series and go on observing into them.
    reset: () => {
      for (const s of all.values()) {
        s.perBucket.fill(0);
        s.count = 0;
        s.sum = 0;
      }
    },
  };
  registry.registerMetric(metric as unknown as Metric);

  return {
    series(labels) {
      const key = Object.values(labels).join('\u0000');
      let found = all.get(key);
      if (!found) {
        const s: Series = {
          labels,
          perBucket: bounds.map(() => 0),
          count: 0,
          sum: 0,
          observe(seconds) {
            // The first bucket whose bound is not below the value, as prom-client places it.
            let i = 0;
            while (i < bounds.length && seconds > bounds[i]!) i++;
            if (i < bounds.length) s.perBucket[i]!++;
            s.count++;
            s.sum += seconds;
          },
        };
        all.set(key, (found = s));
      }
      return found;
    },
  };
}
