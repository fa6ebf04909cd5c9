/**
 * Records every timer, interval and immediate created through the global functions while it is
 * installed, so a test can prove that none is left pending, unref'd ones included (they do not show
 * in `process.getActiveResourcesInfo()`).
 */
export interface TimerTracker {
  /** Handles created while installed that have neither fired (timeouts, immediates) nor been cleared. */
  pending(): { kind: string; stack: string }[];
  /** Puts the original global functions back; handles keep being checked by `pending()`. */
  uninstall(): void;
}

interface Tracked {
  kind: string;
  handle: { _destroyed?: boolean };
  stack: string;
}

/** Installs a tracker over `setTimeout`, `setInterval` and `setImmediate`. */
export function trackTimers(): TimerTracker {
  const g = globalThis as unknown as Record<string, (...a: unknown[]) => unknown>;
  const names = ['setTimeout', 'setInterval', 'setImmediate'] as const;
  const originals = new Map(names.map((n) => [n, g[n]] as const));
  const tracked: Tracked[] = [];
  for (const n of names) {
    const orig = originals.get(n)!;
    const wrapper = (...args: unknown[]): unknown => {
      const handle = orig(...args) as { _destroyed?: boolean };
      tracked.push({ kind: n, handle, stack: new Error().stack ?? '' });
      return handle;
    };
    g[n] = Object.assign(wrapper, orig);
  }
  return {
    pending: () =>
      tracked
        .filter((t) => typeof t.handle._destroyed !== 'boolean' || !t.handle._destroyed)
        .map((t) => ({ kind: t.kind, stack: t.stack })),
    uninstall: () => {
      for (const [n, f] of originals) g[n] = f;
    },
  };
}
