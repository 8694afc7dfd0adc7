// Runbooks per product (issue 26): for a seller's item id, the checklist a person works through on
// the order page, links built from templates with the order's fields, and the reasons offered when
// marking Failed. Kept in the settings (`runbooks`, preload/settings-declaration.ts), so the file,
// the Settings editor, an imported file and (later) IT policy are all checked here, the one place:
// the main process checks a change with `checkRunbooks`, the window checks an import with it before
// sending anything, and both build a link with `runbookLink`.
//
// A link's template fixes where it goes: only http(s), no credentials, a literal host; the order's
// fields (marketplace text: hostile) are URL-encoded into its path, query or fragment only, and a
// value that would still move the link elsewhere (a whole `..` path segment) refuses the link.
import type { License, Order } from './marketplace';

export interface RunbookLink {
  label: string;
  /** An http(s) address with {field} placeholders after its host (RUNBOOK_FIELDS). */
  url: string;
}

/** A reason offered when marking Failed: it fills the form's two fields. */
export interface RunbookReason {
  description: string;
  detailedDescription: string;
}

export interface Runbook {
  /** The seller's item id of the product (an order line's sellersItemId), compared without case. */
  itemId: string;
  name: string;
  /** The steps, in order; each ticked per order on this laptop. */
  checklist: string[];
  links: RunbookLink[];
  reasons: RunbookReason[];
}

/** A step ticked on an order, on this laptop (the account's store); `itemId` in lower case. */
export interface RunbookTick {
  itemId: string;
  step: string;
  tickedAt: string;
}

export const RUNBOOK_LIMITS = {
  runbooks: 200,
  itemId: 100,
  name: 80,
  steps: 50,
  step: 200,
  links: 20,
  label: 80,
  url: 2048,
  reasons: 20,
  /** As a Failed mark takes them (contract.ts LIMITS). */
  description: 1000,
  detailedDescription: 4000,
} as const;

/** What a link's template may use: each field, where it comes from, in words for the docs and the editor. */
export const RUNBOOK_FIELDS = {
  orderId: "the order's id",
  buyerAccountId: "your account id for the buyer (the order's supplierAssignedAccountId)",
  licenseEmail: "the first license's e-mail address (the license holder's)",
  buyerName: "the buyer's name (its party name)",
  buyerEmail: "the buyer contact's e-mail address",
  itemId: "the line's seller's item id (the product's)",
  lineId: "the line's id",
  quantity: "the line's quantity",
} as const;
export type RunbookField = keyof typeof RUNBOOK_FIELDS;

const PLACEHOLDER = /\{([^{}]*)\}/g;

/** Why a template cannot make a link, in words; null when it can. */
export function linkTemplateProblem(template: string): string | null {
  const scheme = /^(https?):\/\//i.exec(template);
  if (!scheme)
    return 'must start with https:// or http:// (no javascript:, file:, data: or relative addresses)';
  const rest = template.slice(scheme[0].length);
  const hostEnd = rest.search(/[/?#]/);
  const authority = hostEnd < 0 ? rest : rest.slice(0, hostEnd);
  // The URL parser would read a host out of `https:///path`: the host must be there as written.
  if (authority === '') return 'must name a host';
  if (/[{}]/.test(authority)) return 'may use {fields} only after the host, in the path, query or fragment';
  // A URL parser reads `\` as `/`: `https://evil.example\.good.example/` goes to evil.example.
  if (authority.includes('\\')) return 'must not hold a backslash (\\) in its host: write / after the host';
  if (authority.includes('@')) return 'must not carry a user name or password';
  const unknown = [...template.matchAll(PLACEHOLDER)]
    .map((m) => m[1] ?? '')
    .filter((name) => !(name in RUNBOOK_FIELDS));
  if (unknown.length > 0) {
    return `uses {${unknown[0]}}, which is not a field: use ${Object.keys(RUNBOOK_FIELDS)
      .map((f) => `{${f}}`)
      .join(', ')}`;
  }
  if (/[{}]/.test(template.replace(PLACEHOLDER, ''))) return 'has a { or } that opens or closes no {field}';
  try {
    new URL(template.replace(PLACEHOLDER, 'x'));
  } catch {
    return 'is not a web address';
  }
  return null;
}

/** The fields of one order line, as a link's template reads them (absent: the order lacks it). */
export type OrderFields = Partial<Record<RunbookField, string>>;

/** An order line's fields: the order's, its first license's, and the line's own. */
export function orderFields(
  order: Order,
  licenses: readonly License[] | null,
  lineIndex: number,
): OrderFields {
  const line = order.documentLines[lineIndex];
  const quantity = line?.lineItem?.quantity;
  const fields: Record<RunbookField, string | undefined> = {
    orderId: order.orderId,
    buyerAccountId: order.buyerCustomerParty.supplierAssignedAccountId,
    licenseEmail: licenses?.find((l) => l.electronicMail)?.electronicMail,
    buyerName: order.buyerCustomerParty.party?.partyName,
    buyerEmail: order.buyerCustomerParty.buyerContact?.electronicMail,
    itemId: line?.lineItem?.sellersItemId,
    lineId: line?.lineId,
    quantity: quantity?.exactValue ?? (quantity?.value === undefined ? undefined : String(quantity.value)),
  };
  return Object.fromEntries(
    Object.entries(fields).filter(([, v]) => v !== undefined && v !== ''),
  ) as OrderFields;
}

/** Every character but RFC 3986's unreserved ones percent-encoded (encodeURIComponent leaves !'()* too). */
function encodeValue(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** A path segment a URL resolves away (`.`, `..`, encoded or not): a value there would move the link. */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

export type BuiltLink = { ok: true; url: string } | { ok: false; problem: string };

/**
 * A link's address for an order line: each {field} replaced by its value, URL-encoded. Refused in
 * words when the template is not usable, the order lacks a field it uses, or a value would change
 * where it goes.
 */
export function runbookLink(template: string, fields: OrderFields): BuiltLink {
  const problem = linkTemplateProblem(template);
  if (problem) return { ok: false, problem: `The link's address ${problem}.` };
  const missing = [...template.matchAll(PLACEHOLDER)]
    .map((m) => m[1] as RunbookField)
    .filter((name) => fields[name] === undefined);
  if (missing.length > 0) {
    return {
      ok: false,
      // In the fields' own words, without where each comes from: "the buyer's name".
      problem: `This order does not have ${[...new Set(missing)]
        .map((f) => RUNBOOK_FIELDS[f].replace(/ \(.*\)$/, ''))
        .join(' or ')} yet.`,
    };
  }
  const built = template.replace(PLACEHOLDER, (_, name: RunbookField) => encodeValue(fields[name] ?? ''));
  const shape = new URL(template.replace(PLACEHOLDER, 'x'));
  const url = new URL(built);
  const path =
    built
      .slice(built.indexOf('//') + 2)
      .replace(/^[^/?#]*/, '')
      .split(/[?#]/)[0] ?? '';
  if (url.origin !== shape.origin || path.split('/').some((segment) => DOT_SEGMENT.test(segment))) {
    return {
      ok: false,
      problem: "This order's text would change where the link goes, so it is not offered.",
    };
  }
  return { ok: true, url: url.href };
}

/**
 * Whether `url` is one a runbook's link can make: http(s), no credentials, at the origin of one of
 * the templates. The shell opens such a link outside the window (main/shell/external-links.ts).
 */
export function isRunbookLink(url: string, runbooks: readonly Runbook[]): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (!/^https?:$/.test(parsed.protocol) || parsed.username !== '' || parsed.password !== '') return false;
  return runbooks.some((runbook) =>
    runbook.links.some(
      (link) =>
        linkTemplateProblem(link.url) === null &&
        new URL(link.url.replace(PLACEHOLDER, 'x')).origin === parsed.origin,
    ),
  );
}

/** The runbook of an item id, if any (item ids are compared without case and surrounding spaces). */
export function runbookFor(runbooks: readonly Runbook[], itemId: string | undefined): Runbook | undefined {
  const key = itemId?.trim().toLowerCase();
  return key ? runbooks.find((r) => r.itemId.toLowerCase() === key) : undefined;
}

/** The runbooks an order's lines call for, once per product, in line order, each with its first line. */
export function runbooksOfOrder(
  order: Order,
  runbooks: readonly Runbook[],
): { runbook: Runbook; lineIndex: number }[] {
  const found: { runbook: Runbook; lineIndex: number }[] = [];
  for (const [lineIndex, line] of order.documentLines.entries()) {
    const runbook = runbookFor(runbooks, line.lineItem?.sellersItemId);
    if (runbook && !found.some((f) => f.runbook === runbook)) found.push({ runbook, lineIndex });
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Checking: the settings, the editor and an imported file all go through `checkRunbooks`.

export type RunbooksCheck = { ok: true; runbooks: Runbook[] } | { ok: false; problems: string[] };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Text of 1..max characters without control characters (a step, a name); `lines` lets a detailed reason have line breaks. */
function textProblem(value: unknown, max: number, lines = false): string | null {
  if (typeof value !== 'string' || value.trim() === '') return 'must be text (it is empty or missing)';
  if (value.length > max) return `must be at most ${max} characters`;
  const controls = lines ? /(?![\n\r\t])\p{Cc}/u : /\p{Cc}/u;
  if (controls.test(value)) return 'must not contain control characters';
  return null;
}

/** A list of at most `max`, each checked by `item` (which pushes its own problems). */
function listOf<T>(
  value: unknown,
  max: number,
  what: string,
  where: string,
  problems: string[],
  item: (entry: unknown, index: number) => T | undefined,
): T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    problems.push(`${where}: ${what} must be a list`);
    return [];
  }
  if (value.length > max) problems.push(`${where}: at most ${max} ${what}`);
  return value.flatMap((entry, index) => {
    const checked = item(entry, index);
    return checked === undefined ? [] : [checked];
  });
}

function checkRunbook(value: unknown, index: number, problems: string[]): Runbook | undefined {
  const id = isObject(value) && typeof value.itemId === 'string' ? ` (${value.itemId.slice(0, 40)})` : '';
  const where = `Runbook ${index + 1}${id}`;
  if (!isObject(value)) {
    problems.push(`${where} must be an object with itemId, name, checklist, links and reasons`);
    return undefined;
  }
  const before = problems.length;
  const unknown = Object.keys(value).filter(
    (k) => !['itemId', 'name', 'checklist', 'links', 'reasons'].includes(k),
  );
  if (unknown.length > 0) problems.push(`${where}: ${unknown.join(', ')} is not part of a runbook`);
  const field = (label: string, v: unknown, max: number, lines = false) => {
    const problem = textProblem(v, max, lines);
    if (problem) problems.push(`${where}: ${label} ${problem}`);
    return typeof v === 'string' ? v.trim() : '';
  };
  const itemId = field('the item id', value.itemId, RUNBOOK_LIMITS.itemId);
  const name = field('the name', value.name, RUNBOOK_LIMITS.name);
  const checklist = listOf(value.checklist, RUNBOOK_LIMITS.steps, 'steps', where, problems, (step, i) =>
    field(`step ${i + 1}`, step, RUNBOOK_LIMITS.step),
  );
  const seen = new Set<string>();
  for (const [i, step] of checklist.entries()) {
    // A step's tick is kept by its text (the store's runbook_ticks): each step once.
    if (seen.has(step))
      problems.push(`${where}: step ${i + 1} repeats "${step.slice(0, 40)}": each step once`);
    seen.add(step);
  }
  const links = listOf(value.links, RUNBOOK_LIMITS.links, 'links', where, problems, (link, i) => {
    if (!isObject(link)) {
      problems.push(`${where}: link ${i + 1} must be an object with label and url`);
      return undefined;
    }
    const label = field(`link ${i + 1}'s label`, link.label, RUNBOOK_LIMITS.label);
    const url = field(`link ${i + 1}'s address`, link.url, RUNBOOK_LIMITS.url);
    const problem = url && linkTemplateProblem(url);
    if (problem) problems.push(`${where}: link ${i + 1}'s address ${problem}`);
    return { label, url };
  });
  const reasons = listOf(value.reasons, RUNBOOK_LIMITS.reasons, 'reasons', where, problems, (reason, i) => {
    if (!isObject(reason)) {
      problems.push(`${where}: reason ${i + 1} must be an object with description and detailedDescription`);
      return undefined;
    }
    return {
      description: field(`reason ${i + 1}'s description`, reason.description, RUNBOOK_LIMITS.description),
      detailedDescription: field(
        `reason ${i + 1}'s detailed description`,
        reason.detailedDescription,
        RUNBOOK_LIMITS.detailedDescription,
        true,
      ),
    };
  });
  return problems.length === before ? { itemId, name, checklist, links, reasons } : undefined;
}

/** A list of runbooks checked whole: every problem named by runbook and item, or the clean list. */
export function checkRunbooks(value: unknown): RunbooksCheck {
  const problems: string[] = [];
  if (!Array.isArray(value)) return { ok: false, problems: ['The runbooks must be a list.'] };
  if (value.length > RUNBOOK_LIMITS.runbooks) problems.push(`At most ${RUNBOOK_LIMITS.runbooks} runbooks.`);
  const runbooks = value.flatMap((entry, index) => checkRunbook(entry, index, problems) ?? []);
  const ids = new Map<string, number>();
  for (const [index, runbook] of runbooks.entries()) {
    const key = runbook.itemId.toLowerCase();
    const first = ids.get(key);
    if (first !== undefined) {
      problems.push(
        `Runbook ${index + 1} (${runbook.itemId}) repeats the item id of runbook ${first + 1}: one runbook per product`,
      );
    } else ids.set(key, index);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, runbooks };
}

// ---------------------------------------------------------------------------------------------
// The file a team shares: a versioned shape, read whole or not at all.

export const RUNBOOKS_FILE_FORMAT = 'seller-tray-runbooks';
export const RUNBOOKS_FILE_VERSION = 1;

/** The file's text for a list of runbooks. */
export function runbooksFile(runbooks: readonly Runbook[]): string {
  return `${JSON.stringify({ format: RUNBOOKS_FILE_FORMAT, version: RUNBOOKS_FILE_VERSION, runbooks }, null, 2)}\n`;
}

/** An exported file's runbooks, or every reason it cannot be used (nothing of it is taken then). */
export function readRunbooksFile(text: string): RunbooksCheck {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return {
      ok: false,
      problems: ['The file is not JSON: choose a file exported from Seller Tray → Runbooks.'],
    };
  }
  if (!isObject(value) || value.format !== RUNBOOKS_FILE_FORMAT) {
    return {
      ok: false,
      problems: [
        'The file is not a runbooks file exported from Seller Tray (its "format" is not seller-tray-runbooks).',
      ],
    };
  }
  if (value.version !== RUNBOOKS_FILE_VERSION) {
    return {
      ok: false,
      problems: [
        `The file is version ${String(value.version)}; this Seller Tray reads version ${RUNBOOKS_FILE_VERSION}. Update Seller Tray, or export it again from the same version.`,
      ],
    };
  }
  return checkRunbooks(value.runbooks);
}
