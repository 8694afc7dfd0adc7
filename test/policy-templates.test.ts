// The policy templates administrators deploy (build/policies/): the ADMX/ADML are what
// make-templates.ts writes from the declarations, well-formed, valid against our schema of the
// Group Policy format (checked by libxml2's xmllint, and shown to reject what it must), every string
// and presentation they reference defined, each policy element shown by one control of its kind
// starting within its range, and every value they write a key the app reads as a policy (read back
// through the Windows reader); the example configuration profile parses and its payload is read by
// the macOS reader with no problem.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DOMParser, type Document as XmlDocument, type Element as XmlElement } from '@xmldom/xmldom';
import { build as buildPlist, parse as parsePlist } from 'plist';
import { describe, expect, it } from 'vitest';
import { offeredPolicies, POLICIES_DIR, templates } from '../build/policies/make-templates';
import { APP_ID } from '../main/core/app-identity';
import { RULES } from '../main/core/policy/keys';
import { resolvePolicies } from '../main/core/policy/layers';
import { macPolicySource, WINDOWS_POLICY_KEY, windowsPolicySource } from '../main/core/policy/sources';
import { SETTING_ENTRIES } from '../preload/settings-declaration';

const read = (relative: string) => readFileSync(path.join(POLICIES_DIR, relative), 'utf8');

/** The document, or the parser's complaints. */
function parseXml(text: string) {
  const errors: string[] = [];
  const parser = new DOMParser({
    onError: (level, message) => {
      if (level !== 'warning') errors.push(message);
    },
  });
  try {
    return { document: parser.parseFromString(text, 'text/xml'), errors };
  } catch (error) {
    // A fatal error throws after it was reported.
    return { document: undefined, errors: errors.length > 0 ? errors : [String(error)] };
  }
}

const elements = (within: XmlDocument | XmlElement, name: string): XmlElement[] => [
  ...within.getElementsByTagName(name),
];

/** The registry value a policy writes: on the policy itself (a boolean), or on its element. */
const valueNameOf = (policy: XmlElement) =>
  policy.getAttribute('valueName') ||
  ['decimal', 'text', 'enum']
    .flatMap((tag) => elements(policy, tag))
    .map((element) => element.getAttribute('valueName'))
    .find(Boolean);

describe('the Group Policy templates', () => {
  const admx = parseXml(read('SellerTray.admx'));
  const adml = parseXml(read('en-US/SellerTray.adml'));
  const admxDocument = () => admx.document as XmlDocument;
  const admlDocument = () => adml.document as XmlDocument;

  it('are what make-templates.ts writes from the declarations', () => {
    expect(read('SellerTray.admx')).toBe(templates().admx);
    expect(read('en-US/SellerTray.adml')).toBe(templates().adml);
  });

  it('are well-formed, and the ADML defines every string and presentation the ADMX names', () => {
    expect(admx.errors).toEqual([]);
    expect(adml.errors).toEqual([]);
    expect(parseXml('<policyDefinitions><policies></policyDefinitions>').errors).not.toEqual([]);
    const strings = new Set(elements(admlDocument(), 'string').map((s) => s.getAttribute('id')));
    const presentations = new Set(elements(admlDocument(), 'presentation').map((p) => p.getAttribute('id')));
    const text = read('SellerTray.admx');
    const named = (kind: string) =>
      [...text.matchAll(new RegExp(`\\$\\(${kind}\\.([\\w]+)\\)`, 'g'))].map((m) => m[1]);
    expect(named('string').filter((id) => !strings.has(id ?? ''))).toEqual([]);
    expect(named('presentation').filter((id) => !presentations.has(id ?? ''))).toEqual([]);
  });

  it('show each policy element with one control of its kind, whose starting number is within range', () => {
    // The element a presentation control edits, by tag; and what the editor assumes when an attribute
    // is left out (the decimalTextBox starts at 1, a decimal's range is 0..9999).
    const kindOf: Record<string, string> = {
      decimalTextBox: 'decimal',
      textBox: 'text',
      dropdownList: 'enum',
      checkBox: 'boolean',
    };
    const number = (element: XmlElement, attribute: string, otherwise: number) =>
      Number(element.getAttribute(attribute) || otherwise);
    const children = (element: XmlElement | undefined) =>
      [...(element?.childNodes ?? [])].filter((node): node is XmlElement => node.nodeType === 1);
    const presentations = new Map(
      elements(admlDocument(), 'presentation').map((p) => [p.getAttribute('id'), p]),
    );
    const problems = elements(admxDocument(), 'policy').flatMap((policy) => {
      const name = policy.getAttribute('name');
      const fields = children(elements(policy, 'elements')[0]);
      const shownBy = /^\$\(presentation\.(\w+)\)$/.exec(policy.getAttribute('presentation') ?? '')?.[1];
      const controls = children(presentations.get(shownBy ?? null)).filter((c) => c.hasAttribute('refId'));
      const found: string[] = [];
      for (const field of fields) {
        const shown = controls.filter((c) => c.getAttribute('refId') === field.getAttribute('id'));
        if (shown.length !== 1 || kindOf[shown[0]?.tagName ?? ''] !== field.tagName) {
          found.push(
            `${name}: its ${field.tagName} is shown by ${shown.map((c) => c.tagName).join(', ') || 'nothing'}`,
          );
        } else if (field.tagName === 'decimal') {
          const start = number(shown[0] as XmlElement, 'defaultValue', 1);
          if (start < number(field, 'minValue', 0) || start > number(field, 'maxValue', 9999)) {
            found.push(
              `${name}: starts at ${start}, outside ${field.getAttribute('minValue')}..${field.getAttribute('maxValue')}`,
            );
          }
        }
      }
      if (controls.length !== fields.length)
        found.push(`${name}: ${controls.length} controls for ${fields.length} elements`);
      return found;
    });
    expect(problems).toEqual([]);
  });

  it('offer every policy the app reads, locked and (for settings) recommended, and nothing else', () => {
    const policies = elements(admxDocument(), 'policy');
    const valueNames = (key: string) =>
      policies
        .filter((p) => p.getAttribute('key') === key)
        .map(valueNameOf)
        .sort();
    const settings = SETTING_ENTRIES.filter(([, s]) => s.policy !== false).map(([key]) => key);
    expect(valueNames(WINDOWS_POLICY_KEY)).toEqual([...settings, ...Object.keys(RULES)].sort());
    expect(valueNames(`${WINDOWS_POLICY_KEY}\\Recommended`)).toEqual([...settings].sort());
    expect(new Set(policies.map((p) => p.getAttribute('class')))).toEqual(new Set(['Both']));
  });

  it('write values the Windows reader takes as policies', async () => {
    // What Group Policy writes for each template, as `reg export` writes it back.
    const { settings, rules } = offeredPolicies();
    const line = (name: string, element: (typeof settings)[number]['element']) =>
      element.type === 'boolean' || element.type === 'decimal'
        ? `"${name}"=dword:00000001`
        : `"${name}"="${element.type === 'enum' ? element.items[0]?.value : 'text'}"`;
    const key = `HKEY_LOCAL_MACHINE\\${WINDOWS_POLICY_KEY}`;
    const output = [
      'Windows Registry Editor Version 5.00',
      '',
      `[${key}]`,
      ...[...settings, ...rules].map((o) => line(o.name, o.element)),
      '',
      `[${key}\\Recommended]`,
      ...settings.map((o) => line(o.name, o.element)),
    ].join('\r\n');
    const policies = resolvePolicies(
      await windowsPolicySource(async (asked) => (asked === key ? output : undefined)).read(),
    );
    const notPolicies = policies.problems.filter((p) =>
      /not a Seller Tray policy|cannot be set|managed policy only/.test(p.message),
    );
    expect(notPolicies).toEqual([]);
    expect(policies.inForce.length).toBeGreaterThan(0);
  });
});

const SCHEMA = path.join(POLICIES_DIR, 'schema', 'sellertray-policy-definitions.xsd');

/** xmllint's verdict on a template against our schema: valid, or its validity errors. */
function validate(text: string) {
  const run = spawnSync('xmllint', ['--noout', '--schema', SCHEMA, '-'], { input: text, encoding: 'utf8' });
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    // .ci/run installs it: a missing validator is a broken machine, not a reason to pass.
    throw new Error(
      'xmllint is not installed: install libxml2-utils (`apt-get install libxml2-utils`) to validate the templates',
    );
  }
  if (run.error) throw run.error;
  // Exit 5 is the schema itself not compiling: every verdict would be meaningless.
  expect(run.status, run.stderr).not.toBe(5);
  return { valid: run.status === 0, errors: run.stderr.split('\n').filter((line) => /error/i.test(line)) };
}

/** The template with its first `from` replaced, which must be there (or the case proves nothing). */
function changed(text: string, from: string, to: string) {
  expect(text).toContain(from);
  return text.replace(from, to);
}

describe('the Group Policy templates against our schema (build/policies/schema)', () => {
  const admx = read('SellerTray.admx');
  const adml = read('en-US/SellerTray.adml');

  it('validate, both the ADMX and the ADML', () => {
    expect(validate(admx)).toEqual({ valid: true, errors: [] });
    expect(validate(adml)).toEqual({ valid: true, errors: [] });
  });

  it('accept the documented forms the generator does not write today', () => {
    // Written here from the element reference, so the declarations our templates do not exercise yet
    // (boolean elements, lists, conditions, check boxes...) are shown to accept what they should.
    const ns = 'xmlns="http://schemas.microsoft.com/GroupPolicy/2006/07/PolicyDefinitions"';
    const values = '<item valueName="A"><value><decimal value="1" /></value></item>';
    const other = `<policyDefinitions ${ns} revision="2.15" schemaVersion="1.0">
      <policyNamespaces><target prefix="other" namespace="Other.Policies" /><using prefix="windows" namespace="Microsoft.Policies.Windows" /></policyNamespaces>
      <supersededAdm fileName="other.adm" />
      <annotation application="Notes">A comment.</annotation>
      <resources minRequiredRevision="2.0" fallbackCulture="en-US" />
      <supportedOn><definitions>
        <definition name="SUPPORTED_Both" displayName="$(string.Both)"><and><reference ref="windows:SUPPORTED_WindowsVista" /><range ref="Other" minVersionIndex="1" /></and></definition>
      </definitions></supportedOn>
      <categories><category name="Other" displayName="$(string.Other)" explainText="$(string.Other_Help)"><parentCategory ref="windows:System" /></category></categories>
      <policies>
        <policy name="Flags" class="User" displayName="$(string.Flags)" presentation="$(presentation.Flags)" key="Software\\Policies\\Other" valueName="On">
          <parentCategory ref="Other" /><supportedOn ref="SUPPORTED_Both" />
          <enabledValue><string>yes</string></enabledValue><disabledValue><delete /></disabledValue>
          <enabledList defaultKey="Software\\Policies\\Other\\More">${values}</enabledList>
          <elements>
            <boolean id="Check" valueName="Check"><trueValue><longDecimal value="5000000000" /></trueValue><falseValue><decimal value="0" /></falseValue></boolean>
            <enum id="Pick" valueName="Pick" required="true"><item displayName="$(string.One)"><value><decimal value="1" /></value><valueList>${values}</valueList></item></enum>
            <text id="Path" valueName="Path" expandable="true" maxLength="260" clientExtension="{35378EAC-683F-11D2-A89A-00C04FBBCFA2}" />
            <decimal id="Count" key="Software\\Policies\\Other\\Counts" valueName="Count" storeAsText="true" required="true" />
          </elements>
        </policy>
      </policies>
    </policyDefinitions>`;
    const otherResources = `<policyDefinitionResources ${ns} revision="2.15" schemaVersion="1.0">
      <displayName>Other</displayName><description>Other policies.</description>
      <resources>
        <stringTable><string id="Other">Other</string></stringTable>
        <presentationTable><presentation id="Flags">
          <text>Choose:</text><checkBox refId="Check" defaultChecked="true">Check</checkBox>
          <dropdownList refId="Pick" defaultItem="0">Pick</dropdownList>
          <textBox refId="Path"><label>Path</label><defaultValue>%SystemRoot%</defaultValue></textBox>
          <decimalTextBox refId="Count" spin="false" spinStep="5">Count</decimalTextBox>
        </presentation></presentationTable>
      </resources>
    </policyDefinitionResources>`;
    expect(validate(other)).toEqual({ valid: true, errors: [] });
    expect(validate(otherResources)).toEqual({ valid: true, errors: [] });
  });

  // Each case: what it breaks, in which file, what is replaced by what, and the error it must cause.
  const key = ` key="${WINDOWS_POLICY_KEY}"`;
  const head = '<parentCategory ref="SellerTray" />\n      <supportedOn ref="SUPPORTED_SellerTray" />';
  const label = /<label>[^<]*<\/label>/.exec(adml)?.[0] ?? '<label>';
  const broken: Record<string, [string, string, string, RegExp]> = {
    'a policy without its registry key': [admx, key, '', /attribute 'key' is required/],
    'a class other than User, Machine or Both': [
      admx,
      'class="Both"',
      'class="Everyone"',
      /'Everyone' is not/,
    ],
    "a policy's children out of order": [
      admx,
      head,
      head.split('\n').reverse().join('\n'),
      /parentCategory': This element is not/,
    ],
    'a malformed string reference': [admx, '="$(string.', '="$(strings.', /'displayName'.*pattern/],
    'a malformed presentation reference': [
      admx,
      '="$(presentation.',
      '="presentation.',
      /'presentation'.*pattern/,
    ],
    'a decimal with a negative minValue': [admx, 'minValue="0"', 'minValue="-1"', /'-1' .*'xs:unsignedInt'/],
    'a text with a fractional maxLength': [
      admx,
      'maxLength="',
      'maxLength="1.5',
      /'maxLength'.*'xs:unsignedInt'/,
    ],
    'a registry key naming its hive': [admx, key, key.replace('"', '"HKLM\\'), /'key'.*pattern/],
    'a revision that is not major.minor': [admx, 'revision="1.0"', 'revision="1"', /'revision'.*pattern/],
    'a policy name defined twice': [admx, 'name="clientId"', 'name="baseUrl"', /Duplicate key-sequence/],
    "an element policies can't hold": [
      admx,
      '<elements>',
      '<elements><list id="x" />',
      /list': This element is not expected/,
    ],
    'a string id defined twice': [
      adml,
      '<string id="clientId">',
      '<string id="baseUrl">',
      /Duplicate key-sequence/,
    ],
    'a text box without its label': [adml, label, '', /textBox': Missing child element/],
    'a number box starting below zero': [adml, 'defaultValue="', 'defaultValue="-', /'defaultValue'/],
  };
  it.each(Object.entries(broken))('reject %s', (_case, [text, from, to, expected]) => {
    const { valid, errors } = validate(changed(text, from, to));
    expect(valid).toBe(false);
    expect(errors.join('\n')).toMatch(expected);
  });
});

describe('docs/administrators.md', () => {
  it('names every policy key the app reads', () => {
    const page = readFileSync(new URL('../docs/administrators.md', import.meta.url), 'utf8');
    const { settings, rules } = offeredPolicies();
    expect(
      [...settings, ...rules].map((o) => o.name).filter((key) => !page.includes(`| \`${key}\` |`)),
    ).toEqual([]);
  });
});

describe('the example configuration profile', () => {
  it('parses as a plist, and its payload for the app id is read with no problem', async () => {
    const profile = parsePlist(read('com.sellertray.desktop.mobileconfig')) as Record<string, unknown>;
    expect(profile).toMatchObject({
      PayloadType: 'Configuration',
      PayloadVersion: 1,
      PayloadScope: 'System',
    });
    const [payload] = profile.PayloadContent as Record<string, unknown>[];
    expect(payload).toMatchObject({ PayloadType: APP_ID, PayloadEnabled: true });
    // macOS installs the payload as the app id's managed preferences: read it there.
    const root = mkdtempSync(path.join(tmpdir(), 'managed-preferences-'));
    try {
      mkdirSync(root, { recursive: true });
      writeFileSync(path.join(root, `${APP_ID}.plist`), buildPlist(payload as never));
      const policies = resolvePolicies(await macPolicySource(root, 'anna').read());
      expect(policies.problems).toEqual([]);
      expect(policies.managed).toMatchObject({
        clientId: 'example-corp-sales',
        checkForUpdatesAutomatically: false,
      });
      expect(policies.recommended).toEqual({ reminderAfterMinutes: 60, openAtLogin: true });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
