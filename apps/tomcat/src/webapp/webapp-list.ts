import { createHash } from 'node:crypto';
import type { Webapp } from '../tomcat.resource.js';

/** One line of a Tomcat's application list. */
export interface WebappEntry {
  /** The Webapp (`metadata.name`). */
  readonly webapp: string;
  /** Its context path. */
  readonly contextPath: string;
  /** Its WAR's URL. */
  readonly url: string;
}

/** What a Tomcat serves, and the Webapps that wanted a context path already taken. */
export interface WebappList {
  /** One entry per WAR name, by context path. */
  readonly entries: WebappEntry[];
  /** Webapp name to the Webapp that holds its context path. */
  readonly conflicts: ReadonlyMap<string, string>;
}

/**
 * The application list of one Tomcat from the Webapps that name it: those being deleted are left
 * out; when two want one context path (one WAR name) the older (then the name first in order) has it.
 */
export function webappList(webapps: readonly Webapp[]): WebappList {
  const live = webapps
    .filter((w) => !w.metadata?.deletionTimestamp && w.spec)
    .sort(
      (a, b) =>
        String(a.metadata?.creationTimestamp ?? '').localeCompare(
          String(b.metadata?.creationTimestamp ?? ''),
        ) || a.metadata!.name!.localeCompare(b.metadata!.name!),
    );
  // by WAR name, what the pods write: two context paths with one WAR name (`/` and `/ROOT`) conflict
  const byWar = new Map<string, WebappEntry>();
  const conflicts = new Map<string, string>();
  for (const w of live) {
    const entry = { webapp: w.metadata!.name!, contextPath: w.spec!.contextPath, url: w.spec!.url };
    const war = warName(entry.contextPath);
    const holder = byWar.get(war);
    if (holder) conflicts.set(entry.webapp, holder.webapp);
    else byWar.set(war, entry);
  }
  const entries = [...byWar.values()].sort((a, b) => a.contextPath.localeCompare(b.contextPath));
  return { entries, conflicts };
}

/** Tomcat's WAR name for a context path: `/` is `ROOT`, `/a/b` is `a#b`. */
export function warName(contextPath: string): string {
  const trimmed = contextPath.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? 'ROOT' : trimmed.replaceAll('/', '#');
}

/** The list as the ConfigMap holds it: one `<war name> <url>` line per entry. */
export function renderWebappList(list: WebappList): string {
  return list.entries.map((e) => `${warName(e.contextPath)} ${e.url}\n`).join('');
}

/** The context paths of a rendered list (what the pod-template annotation records). */
export function contextPathsOf(rendered: string): string[] {
  return rendered
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const war = line.split(' ')[0];
      return war === 'ROOT' ? '/' : `/${war.replaceAll('#', '/')}`;
    });
}

/** SHA-256 of a rendered list. */
export function listHash(rendered: string): string {
  return createHash('sha256').update(rendered).digest('hex');
}
