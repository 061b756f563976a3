/** The administration CLI: parses arguments, runs one command, prints ids; never prompts. */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { rotateSigningKeys } from '../auth/signingKeys.ts';
import { addConnection } from '../calendars/connections/connections.ts';
import {
  caldavCredentials,
  connectionLabel,
  icsCredentials,
} from '../calendars/connections/credentialsInput.ts';
import { type Config, ConfigError, loadConfig } from '../config/config.ts';
import { AppError, isAppError } from '../errors.ts';
import { systemClock } from '../lib/clock.ts';
import { createSecretBox } from '../lib/encryption.ts';
import { isId } from '../lib/ids.ts';
import { loadOrCreateKeyFile } from '../lib/secretKeyFile.ts';
import { createSmtpMailer } from '../mail/smtpMailer.ts';
import { createUser } from '../people/accounts.ts';
import { emailKey } from '../people/email.ts';
import { passwordResetLink } from '../people/links.ts';
import { issuePasswordReset } from '../people/passwordReset.ts';
import { addMember, createWorkspace } from '../people/workspaces.ts';
import { createCalendarAdapters } from '../providers/adapters.ts';
import { backupSqlite } from '../store/backup.ts';
import {
  type DatabaseHandle,
  migrateToLatest,
  openConfiguredDatabase,
  sqlitePathIn,
} from '../store/database.ts';
import { findUserByEmailKey } from '../store/users.ts';

export interface CliIo {
  env: Record<string, string | undefined>;
  out(line: string): void;
  err(line: string): void;
}

const usage = `Usage: calendar-access <command> [options]

Commands:
  migrate                                              apply pending database migrations
  backup --to FILE                                     copy the embedded database to a new file while
                                                       the service runs (PostgreSQL: use pg_dump)
  user create --email E --password P [--name N]        create a person's account
  user reset-link --email E                            print a single-use link (30 minutes) to choose
                                                       a new password; using it ends every session
  workspace create --name N --owner EMAIL|USER_ID      create a workspace with its owner
  workspace add-member --workspace ID --email E --role owner|admin|member
                                                       add an account (or invite an address:
                                                       e-mailed with SMTP_URL, else the link printed)
  account connect-caldav --email E --workspace ID --url URL --username U --password P
                                                       connect a CalDAV account for a member
  account connect-ics --email E --workspace ID --url URL
                                                       subscribe a member to an ICS feed
  keys rotate                                          add a new token signing key (the previous key
                                                       keeps verifying; on PostgreSQL every running
                                                       instance takes it within a second, on SQLite
                                                       the service after its next restart)

Configuration comes from the environment (DATABASE_URL, DATA_DIR, …) as for the service.`;

class UsageError extends Error {}

const options = {
  email: { type: 'string' },
  password: { type: 'string' },
  name: { type: 'string' },
  owner: { type: 'string' },
  workspace: { type: 'string' },
  role: { type: 'string' },
  url: { type: 'string' },
  username: { type: 'string' },
  to: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = {
  [K in keyof typeof options]?: (typeof options)[K]['type'] extends 'boolean' ? boolean : string;
};

function required(values: Values, name: Exclude<keyof typeof options, 'help'>): string {
  const value = values[name];
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

async function resolveUserId(handle: DatabaseHandle, owner: string): Promise<string> {
  if (isId('usr', owner)) return owner;
  const user = await findUserByEmailKey(handle.db, emailKey(owner));
  if (user === undefined) throw new AppError('not_found', `No account uses ${owner}.`);
  return user.id;
}

async function runCommand(
  handle: DatabaseHandle,
  command: string,
  values: Values,
  config: Config,
  io: CliIo,
) {
  const clock = systemClock;
  switch (command) {
    case 'migrate': {
      const applied = await migrateToLatest(handle);
      io.out(applied.length === 0 ? 'Database is up to date.' : `Applied: ${applied.join(', ')}`);
      return;
    }
    case 'backup': {
      if (handle.engine === 'postgres') {
        throw new AppError(
          'invalid_request',
          'The database is PostgreSQL: back it up with pg_dump (pg_dump --format=custom "$DATABASE_URL" > FILE).',
        );
      }
      const target = required(values, 'to');
      await backupSqlite(sqlitePathIn(config.dataDir), target);
      // Without the key, the credentials and signing keys in the copy cannot be opened.
      const key = config.secretKey === undefined ? join(config.dataDir, 'secret.key') : 'SECRET_KEY';
      io.out(`Backed up to ${target}. Keep ${key} with it: the backup is unusable without it.`);
      return;
    }
    case 'user create': {
      const user = await createUser(handle.db, clock, {
        email: required(values, 'email'),
        password: required(values, 'password'),
        name: values.name,
      });
      io.out(user.id);
      return;
    }
    case 'user reset-link': {
      const userId = await resolveUserId(handle, required(values, 'email'));
      const reset = await issuePasswordReset(handle.db, clock, userId);
      io.out(
        `Password reset link for ${reset.email} (single use, until ${Temporal.Instant.fromEpochMilliseconds(reset.expiresAt).toString({ smallestUnit: 'minute' })}): ${passwordResetLink(linkBase(config, io), reset.token)}`,
      );
      return;
    }
    case 'workspace create': {
      const ownerId = await resolveUserId(handle, required(values, 'owner'));
      const workspace = await createWorkspace(
        { db: handle.db, clock },
        { name: required(values, 'name'), ownerId },
        'system',
      );
      io.out(workspace.id);
      return;
    }
    case 'workspace add-member': {
      const mailer = config.mail === undefined ? undefined : createSmtpMailer(config.mail);
      const result = await addMember(
        {
          db: handle.db,
          clock,
          linkBase: () => linkBase(config, io),
          mailer,
          onMailFailure: (failure) =>
            io.err(
              `The invitation e-mail could not be sent (${failure.code ?? 'failed'}${failure.responseCode ? ` ${failure.responseCode}` : ''}).`,
            ),
        },
        required(values, 'workspace'),
        { email: required(values, 'email'), role: required(values, 'role') },
        'system',
      ).finally(() => mailer?.close());
      if (result.kind === 'added') io.out(result.userId);
      else if (result.mailed === true)
        io.out(
          `No account uses that address; an invitation (single use, 7 days) was e-mailed to ${result.email}.`,
        );
      else io.out(`No account uses that address; invitation link (single use, 7 days): ${result.link}`);
      return;
    }
    case 'account connect-caldav':
    case 'account connect-ics': {
      const credentials =
        command === 'account connect-ics'
          ? icsCredentials({ url: required(values, 'url') })
          : caldavCredentials({
              serverUrl: required(values, 'url'),
              username: required(values, 'username'),
              password: required(values, 'password'),
            });
      const owner = {
        userId: await resolveUserId(handle, required(values, 'email')),
        workspaceId: required(values, 'workspace'),
      };
      const secretKey = config.secretKey ?? loadOrCreateKeyFile(config.dataDir);
      const deps = {
        db: handle.db,
        clock,
        box: createSecretBox(secretKey),
        ...createCalendarAdapters(config, clock),
      };
      const { account, calendars } = await addConnection(
        deps,
        owner,
        credentials,
        connectionLabel(credentials),
      );
      io.out(account.id);
      for (const calendar of calendars) io.out(`${calendar.id}\t${calendar.name}`);
      return;
    }
    case 'keys rotate': {
      const secretKey = config.secretKey ?? loadOrCreateKeyFile(config.dataDir);
      io.out(await rotateSigningKeys(handle.db, createSecretBox(secretKey), config.environment, clock));
      return;
    }
    default:
      throw new UsageError(command === '' ? 'no command given' : `unknown command "${command}"`);
  }
}

/**
 * Where the links the CLI prints or mails point: BASE_URL, by the service's own rule. Unset, that
 * rule makes it from PORT, which is the CLI's environment and not necessarily the service's: said.
 */
function linkBase(config: Config, io: CliIo): string {
  if (config.baseUrlFromPort) {
    io.err(
      `warning: BASE_URL is not set, so this link assumes the service is reached at ${config.baseUrl}; set BASE_URL to the address the service is reached at (as for the service) to print links that work elsewhere.`,
    );
  }
  return config.baseUrl;
}

/** Runs the CLI; returns the exit code (0 done, 1 refused, 2 usage, 78 configuration). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    io.err(`error: ${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  const values = parsed.values as Values;
  const command = parsed.positionals.join(' ');
  if (values.help === true || command === 'help') {
    io.out(usage);
    return 0;
  }
  let handle: DatabaseHandle | undefined;
  try {
    const config = loadConfig(io.env);
    handle = openConfiguredDatabase(config);
    // A backup copies the database as it is (before an upgrade's migrations, say).
    if (command !== 'migrate' && command !== 'backup') await migrateToLatest(handle);
    await runCommand(handle, command, values, config, io);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`error: ${error.message}\n\n${usage}`);
      return 2;
    }
    if (error instanceof ConfigError) {
      io.err(error.message);
      return 78;
    }
    if (isAppError(error)) {
      io.err(`error: ${error.code}: ${error.message}`);
      return 1;
    }
    io.err(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await handle?.close();
  }
}
