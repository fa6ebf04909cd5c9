import pretty from 'pino-pretty';

/**
 * Where the sample's logs go: pino-pretty (one readable, coloured line per entry) when stdout is a
 * terminal outside production (`npm start` in a shell), else undefined, which keeps pino's JSON
 * lines, the default for production and log collectors. `LOG_FORMAT=json` or `LOG_FORMAT=pretty`
 * forces either.
 */
export function devLogStream(
  env: NodeJS.ProcessEnv,
  stdoutIsTerminal: boolean | undefined,
  destination: NodeJS.WritableStream = process.stdout,
): NodeJS.WritableStream | undefined {
  const format = env['LOG_FORMAT'];
  const readable =
    format === 'pretty' ||
    (format !== 'json' && stdoutIsTerminal === true && env['NODE_ENV'] !== 'production');
  if (!readable) return undefined;
  return pretty({
    colorize: stdoutIsTerminal === true,
    ignore: 'pid,hostname',
    translateTime: 'SYS:HH:MM:ss.l',
    destination,
    sync: true,
  });
}
