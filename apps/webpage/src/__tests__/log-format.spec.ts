import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { devLogStream } from '../dev/log-format.js';

function capture(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

describe('the sample log format', () => {
  it('keeps JSON (undefined stream) when piped, in production, or with LOG_FORMAT=json', () => {
    expect(devLogStream({}, false)).toBeUndefined();
    expect(devLogStream({}, undefined)).toBeUndefined();
    expect(devLogStream({ NODE_ENV: 'production' }, true)).toBeUndefined();
    expect(devLogStream({ LOG_FORMAT: 'json' }, true)).toBeUndefined();
  });

  it('writes one readable line per entry in a terminal (dev mode) or with LOG_FORMAT=pretty', () => {
    expect(devLogStream({}, true, capture().stream)).toBeDefined();
    const out = capture();
    const stream = devLogStream({ LOG_FORMAT: 'pretty' }, false, out.stream)!;
    const log = pino({ base: { pid: 1, hostname: 'h' } }, stream);
    log.info({ context: 'tosdk', controller: 'webpage', 'resource.name': 'hello' }, 'operator started');
    const text = out.text();
    expect(text).not.toMatch(/^\{/);
    expect(text).toMatch(/INFO.*operator started/);
    expect(text).toContain('controller: "webpage"');
    expect(text).not.toContain('hostname');
  });
});
