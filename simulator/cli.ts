// `npm run simulator -- [options]`: the Seller API simulator as a process.
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { FaultSettings } from './faults';
import { QUIRK_NAMES, QUIRKS } from './quirks';
import { startSimulator } from './server';

const USAGE = `Usage: npm run simulator -- [--host 127.0.0.1] [--port 4010] [--seed N] [--orders N]
  [--client-id ID --client-secret SECRET] [--token-ttl SECONDS] [--new-events consume|sticky]
  [--latency-ms N] [--error-rate F] [--rate-limit N] [--data FILE] [--quirks a,b,...]

Quirks (ways a real marketplace may differ from our reading of the spec):
${Object.entries(QUIRKS)
  .map(([name, what]) => `  ${name}: ${what}`)
  .join('\n')}`;

const Count = z.coerce.number().int().min(0);
const Options = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  port: z.coerce.number().int().min(0).max(65_535).default(4010),
  seed: z.coerce.number().int().default(1),
  orders: Count.max(1_000_000).default(25),
  'client-id': z.string().min(1).default('demo-client'),
  'client-secret': z.string().min(1).default('demo-secret'),
  'token-ttl': z.coerce.number().int().min(1).max(86_400).optional(),
  'new-events': FaultSettings.shape.newEvents.optional(),
  'latency-ms': Count.max(120_000).optional(),
  'error-rate': z.coerce.number().min(0).max(1).optional(),
  'rate-limit': Count.optional(),
  data: z.string().min(1).optional(),
  quirks: z
    .string()
    .transform((list) => list.split(',').map((name) => name.trim()))
    .pipe(z.array(z.enum(QUIRK_NAMES)))
    .optional(),
});

function fail(message: string): never {
  console.error(`simulator: ${message}\n${USAGE}`);
  process.exit(2);
}

if (process.argv.includes('--help')) {
  console.log(USAGE);
  process.exit(0);
}

let parsed: z.infer<typeof Options>;
try {
  const { values } = parseArgs({
    options: Object.fromEntries(
      Object.keys(Options.shape).map((name) => [name, { type: 'string' as const }]),
    ),
    strict: true,
  });
  const result = Options.safeParse(values);
  if (!result.success) {
    const issue = result.error.issues[0];
    fail(`--${String(issue?.path[0] ?? '')}: ${issue?.message ?? 'invalid'}`);
  }
  parsed = result.data;
} catch (error) {
  fail((error as Error).message);
}

const simulator = await startSimulator({
  host: parsed.host,
  port: parsed.port,
  seed: parsed.seed,
  orders: parsed.orders,
  client: { clientId: parsed['client-id'], clientSecret: parsed['client-secret'] },
  faults: Object.fromEntries(
    Object.entries({
      tokenTtlSeconds: parsed['token-ttl'],
      newEvents: parsed['new-events'],
      latencyMs: parsed['latency-ms'],
      errorRate: parsed['error-rate'],
      rateLimit: parsed['rate-limit'],
      quirks: parsed.quirks,
    }).filter(([, value]) => value !== undefined),
  ),
  ...(parsed.data ? { dataFile: parsed.data } : {}),
}).catch((error: Error) => fail(error.message));

console.log(`Seller API simulator listening on ${simulator.url}`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    simulator.close().then(
      () => process.exit(0),
      (error: Error) => {
        console.error(`simulator: ${error.message}`);
        process.exit(1);
      },
    );
  });
}
