// A private MariaDB server for the mysql-schema tests (test code, not shipped): Debian's
// mariadb-server binaries, a temporary data directory, 127.0.0.1 and a free port; real accounts
// and passwords (never --skip-grant-tables). Stopped and started again on the same port and data to
// play "database down and back".
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { waitFor } from '@tosdk/nestjs/testing';
import type { MySQLSettings } from '../../database/mysql-settings.js';

/** Thrown when MariaDB is missing or does not start; says how to install it. */
export class PrivateMariaDBError extends Error {
  readonly code = 'PrivateMariaDB';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PrivateMariaDBError';
  }
}

function binary(names: string[]): string {
  for (const name of names) {
    for (const dir of ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin']) {
      const path = join(dir, name);
      if (existsSync(path)) return path;
    }
  }
  throw new PrivateMariaDBError(
    `MariaDB is not installed (none of ${names.join(', ')} found): apt-get install mariadb-server (.ci/run installs it)`,
  );
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function holdPort(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy());
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** The account the operator uses in the tests: may create databases and users and grant. */
export const OPERATOR_USER = 'tosdk_operator';

/** A MariaDB server of one test file. */
export class PrivateMariaDB {
  private process: ChildProcess | undefined;
  private exited: Promise<void> | undefined;
  /** Root's connection (no password, from 127.0.0.1 only); reopened after a restart. */
  private rootConnection: Connection | undefined;
  /** Holds the port while the server is stopped, so no other test's server takes it meanwhile. */
  private portHolder: Server | undefined;

  private constructor(
    private readonly dir: string,
    /** The server's port on 127.0.0.1. */
    readonly port: number,
    /** The operator account's password. */
    readonly operatorPassword: string,
  ) {}

  /** Initialises a data directory, starts the server and creates the operator's account. */
  static async start(): Promise<PrivateMariaDB> {
    const dir = await mkdtemp(join(tmpdir(), 'tosdk-mariadb-'));
    const installDb = binary(['mariadb-install-db', 'mysql_install_db']);
    const asRoot = process.getuid?.() === 0;
    const install = spawnSync(
      installDb,
      [
        '--no-defaults',
        `--datadir=${join(dir, 'data')}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        ...(asRoot ? ['--user=root'] : []),
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    if (install.status !== 0) {
      await rm(dir, { recursive: true, force: true });
      throw new PrivateMariaDBError(
        `${installDb} failed (${install.status}): ${install.stderr || install.stdout}`,
      );
    }
    const db = new PrivateMariaDB(dir, await freePort(), 'operator-password-1');
    await db.startServer();
    await db.root(`CREATE USER '${OPERATOR_USER}'@'127.0.0.1' IDENTIFIED BY '${db.operatorPassword}'`);
    await db.root(`GRANT ALL PRIVILEGES ON *.* TO '${OPERATOR_USER}'@'127.0.0.1' WITH GRANT OPTION`);
    return db;
  }

  /** Settings of the operator's account (override e.g. the password). */
  settings(overrides: Partial<MySQLSettings> = {}): MySQLSettings {
    return {
      host: '127.0.0.1',
      port: this.port,
      user: OPERATOR_USER,
      password: this.operatorPassword,
      poolSize: 3,
      connectTimeoutMs: 2_000,
      userHost: '%',
      ...overrides,
    };
  }

  /** Runs a statement as root; returns the rows of a query. */
  async root(sql: string, params: unknown[] = []): Promise<RowDataPacket[]> {
    this.rootConnection ??= await createConnection({ host: '127.0.0.1', port: this.port, user: 'root' });
    const [rows] = await this.rootConnection.query<RowDataPacket[]>(sql, params);
    return rows;
  }

  /** The schemas whose names start with a prefix. */
  async schemas(prefix: string): Promise<Array<{ name: string; encoding: string }>> {
    const rows = await this.root(
      'SELECT SCHEMA_NAME AS name, DEFAULT_CHARACTER_SET_NAME AS encoding FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ? ORDER BY 1',
      [`${prefix.replaceAll('_', '\\_')}%`],
    );
    return rows.map((r) => ({ name: String(r['name']), encoding: String(r['encoding']) }));
  }

  /** The users (`name@host`) whose names start with a prefix, one entry per account row. */
  async users(prefix: string): Promise<string[]> {
    const rows = await this.root('SELECT User AS u, Host AS h FROM mysql.user WHERE User LIKE ? ORDER BY 1', [
      `${prefix.replaceAll('_', '\\_')}%`,
    ]);
    return rows.map((r) => `${String(r['u'])}@${String(r['h'])}`);
  }

  /** Logs in as a user and creates a table in a schema: what an application would do with the Secret. */
  async useAs(user: string, password: string, schema: string): Promise<void> {
    const connection = await createConnection({
      host: '127.0.0.1',
      port: this.port,
      user,
      password,
      database: schema,
    });
    try {
      await connection.query('CREATE TABLE IF NOT EXISTS probe (id INT PRIMARY KEY)');
      await connection.query('REPLACE INTO probe VALUES (1)');
    } finally {
      await connection.end();
    }
  }

  /** Stops the server (SIGTERM, a clean shutdown) and waits for its exit. */
  async stop(): Promise<void> {
    await this.rootConnection?.end().catch(() => undefined);
    this.rootConnection = undefined;
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    child.kill('SIGTERM');
    await this.exited;
    this.process = undefined;
    this.portHolder = await holdPort(this.port).catch(() => undefined);
  }

  /** Starts the server again on the same port and data directory. */
  async restart(): Promise<void> {
    await this.releasePort();
    await this.startServer();
  }

  /** Stops the server and deletes its data directory. */
  async destroy(): Promise<void> {
    await this.stop().catch(() => undefined);
    await this.releasePort();
    await rm(this.dir, { recursive: true, force: true });
  }

  private async releasePort(): Promise<void> {
    const holder = this.portHolder;
    this.portHolder = undefined;
    if (holder) await new Promise<void>((resolve) => holder.close(() => resolve()));
  }

  private async startServer(): Promise<void> {
    const mariadbd = binary(['mariadbd', 'mysqld']);
    const args = [
      '--no-defaults',
      `--datadir=${join(this.dir, 'data')}`,
      '--bind-address=127.0.0.1',
      `--port=${this.port}`,
      `--socket=${join(this.dir, 'mysqld.sock')}`,
      `--pid-file=${join(this.dir, 'mysqld.pid')}`,
      `--log-error=${join(this.dir, 'error.log')}`,
      '--skip-log-bin',
      '--skip-name-resolve',
      '--innodb-buffer-pool-size=16M',
      '--performance-schema=OFF',
      ...(process.getuid?.() === 0 ? ['--user=root'] : []),
    ];
    const child = spawn(mariadbd, args, { stdio: 'ignore' });
    this.process = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    try {
      await waitFor(
        async () => {
          if (child.exitCode !== null)
            throw new PrivateMariaDBError(`mariadbd exited with ${child.exitCode}`);
          const c = await createConnection({ host: '127.0.0.1', port: this.port, user: 'root' });
          await c.end();
          return true;
        },
        { timeoutMs: 60_000, intervalMs: 100, description: `MariaDB on 127.0.0.1:${this.port}` },
      );
    } catch (error) {
      const log = await readFile(join(this.dir, 'error.log'), 'utf8').catch(() => '');
      child.kill('SIGKILL');
      throw new PrivateMariaDBError(`MariaDB did not start: ${String(error)}\n${log.slice(-2_000)}`, {
        cause: error,
      });
    }
  }
}
