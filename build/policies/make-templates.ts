// Writes the Group Policy templates (SellerTray.admx and en-US/SellerTray.adml) from the same
// declarations the app checks policies with (preload/settings-declaration.ts, main/core/policy/
// keys.ts), so a template can never offer a key the app ignores: `npx tsx build/policies/make-templates.ts`.
// A test holds the committed files to this output. Each policy is offered twice where the app reads
// it twice: locked (Software\Policies\SellerTray) and, for the settings, recommended (its
// Recommended subkey); class Both, so IT sets it for the computer (HKLM, first) or per user (HKCU).
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RULES } from '../../main/core/policy/keys';
import { WINDOWS_POLICY_KEY } from '../../main/core/policy/sources';
import { SETTING_ENTRIES, type SETTINGS } from '../../preload/settings-declaration';

type Setting = (typeof SETTINGS)[keyof typeof SETTINGS];

/** One policy as the templates offer it: its registry value and the element that edits it. */
interface Offered {
  name: string;
  label: string;
  explain: string;
  element:
    | { type: 'boolean' }
    | { type: 'decimal'; min: number; max: number; defaultValue: number | undefined }
    | { type: 'enum'; items: readonly { value: string; label: string }[] }
    | { type: 'text'; maxLength: number };
}

const TEXT_MAX = 4096;

function settingElement(setting: Setting): Offered['element'] {
  switch (setting.type) {
    case 'boolean':
      return { type: 'boolean' };
    case 'whole':
      return {
        type: 'decimal',
        min: setting.off ?? setting.min,
        max: setting.max,
        defaultValue: setting.default,
      };
    case 'choice':
      return { type: 'enum', items: setting.choices };
    case 'checked':
      // The account list is a JSON array in one text value, as `api` is an object.
      return { type: 'text', maxLength: 'maxLength' in setting ? (setting.maxLength ?? TEXT_MAX) : TEXT_MAX };
    case 'file':
      return { type: 'text', maxLength: TEXT_MAX }; // JSON text, as the registry holds an object
  }
}

/** The settings a policy may set, and the rules, as the templates offer them. */
export function offeredPolicies(): { settings: Offered[]; rules: Offered[] } {
  const settings = SETTING_ENTRIES.filter(([, s]) => s.policy !== false).map(([key, setting]): Offered => {
    const hint = setting.shows.in === 'form' ? ` ${setting.shows.hint ?? ''}` : '';
    return {
      name: key,
      label: setting.label,
      explain: `${setting.label}.${hint} The value ${setting.rule}.`.replace(/\s+/g, ' '),
      element: settingElement(setting),
    };
  });
  const rules = Object.entries(RULES).map(([key, rule]): Offered => {
    const { range, choices } = rule;
    const element: Offered['element'] =
      rule.kind === 'boolean'
        ? { type: 'boolean' }
        : range
          ? { type: 'decimal', ...range, defaultValue: undefined }
          : choices
            ? { type: 'enum', items: choices }
            : { type: 'text', maxLength: TEXT_MAX };
    return { name: key, label: rule.label, explain: `${rule.label}: the value ${rule.rule}.`, element };
  });
  return { settings, rules };
}

const xmlText = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

const RECOMMENDED = 'Recommended';
const NAMESPACE = 'http://schemas.microsoft.com/GroupPolicy/2006/07/PolicyDefinitions';

/** The policy's id in the templates: the locked one by its key, the recommended one suffixed. */
const idOf = (offered: Offered, recommended: boolean) =>
  `${offered.name}${recommended ? `_${RECOMMENDED}` : ''}`;

function admxPolicy(offered: Offered, recommended: boolean): string {
  const id = idOf(offered, recommended);
  const key = `${WINDOWS_POLICY_KEY}${recommended ? `\\${RECOMMENDED}` : ''}`;
  const { element } = offered;
  const head = `    <policy name="${id}" class="Both" displayName="$(string.${id})" explainText="$(string.${id}_Explain)"`;
  const category = `      <parentCategory ref="${recommended ? 'SellerTray_Recommended' : 'SellerTray'}" />\n      <supportedOn ref="SUPPORTED_SellerTray" />`;
  if (element.type === 'boolean') {
    return `${head} key="${key}" valueName="${offered.name}">
${category}
      <enabledValue><decimal value="1" /></enabledValue>
      <disabledValue><decimal value="0" /></disabledValue>
    </policy>`;
  }
  const inner =
    element.type === 'decimal'
      ? `<decimal id="${id}" valueName="${offered.name}" minValue="${element.min}" maxValue="${element.max}" />`
      : element.type === 'enum'
        ? `<enum id="${id}" valueName="${offered.name}">\n${element.items
            .map(
              (item) =>
                `          <item displayName="$(string.${id}_${item.value.replace(/\W/g, '_')})"><value><string>${xmlText(item.value)}</string></value></item>`,
            )
            .join('\n')}\n        </enum>`
        : `<text id="${id}" valueName="${offered.name}" maxLength="${element.maxLength}" />`;
  return `${head} presentation="$(presentation.${id})" key="${key}">
${category}
      <elements>
        ${inner}
      </elements>
    </policy>`;
}

function admlStrings(offered: Offered, recommended: boolean): string[] {
  const id = idOf(offered, recommended);
  const lines = [
    `<string id="${id}">${xmlText(offered.label)}${recommended ? ' (recommended)' : ''}</string>`,
    `<string id="${id}_Explain">${xmlText(offered.explain)}${recommended ? ' Recommended: the user may change it; until they do, this value replaces the built-in default.' : ' Locked: the user cannot change it, and Seller Tray shows it as managed by your organization.'}</string>`,
  ];
  if (offered.element.type === 'enum') {
    for (const item of offered.element.items)
      lines.push(`<string id="${id}_${item.value.replace(/\W/g, '_')}">${xmlText(item.label)}</string>`);
  }
  return lines;
}

function admlPresentation(offered: Offered, recommended: boolean): string | undefined {
  const id = idOf(offered, recommended);
  const { element } = offered;
  const label = xmlText(offered.label);
  switch (element.type) {
    case 'boolean':
      return undefined;
    case 'decimal':
      // Always a start value: left out, the editor starts the box at 1, which may be below the range.
      return `<presentation id="${id}"><decimalTextBox refId="${id}" defaultValue="${element.defaultValue ?? element.min}">${label}</decimalTextBox></presentation>`;
    case 'enum':
      return `<presentation id="${id}"><dropdownList refId="${id}" noSort="true">${label}</dropdownList></presentation>`;
    case 'text':
      return `<presentation id="${id}"><textBox refId="${id}"><label>${label}</label></textBox></presentation>`;
  }
}

export function templates(): { admx: string; adml: string } {
  const { settings, rules } = offeredPolicies();
  const all: [Offered, boolean][] = [
    ...settings.map((s): [Offered, boolean] => [s, false]),
    ...rules.map((r): [Offered, boolean] => [r, false]),
    ...settings.map((s): [Offered, boolean] => [s, true]),
  ];
  const admx = `<?xml version="1.0" encoding="utf-8"?>
<!-- Seller Tray's policies for Group Policy and Intune (generated by build/policies/make-templates.ts). -->
<policyDefinitions xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" revision="1.0" schemaVersion="1.0" xmlns="${NAMESPACE}">
  <policyNamespaces>
    <target prefix="sellertray" namespace="SellerTray.Policies" />
  </policyNamespaces>
  <resources minRequiredRevision="1.0" />
  <supportedOn>
    <definitions>
      <definition name="SUPPORTED_SellerTray" displayName="$(string.SUPPORTED_SellerTray)" />
    </definitions>
  </supportedOn>
  <categories>
    <category name="SellerTray" displayName="$(string.SellerTray)" />
    <category name="SellerTray_Recommended" displayName="$(string.SellerTray_Recommended)">
      <parentCategory ref="SellerTray" />
    </category>
  </categories>
  <policies>
${all.map(([offered, recommended]) => admxPolicy(offered, recommended)).join('\n')}
  </policies>
</policyDefinitions>
`;
  const presentations = all.flatMap(([o, r]) => admlPresentation(o, r) ?? []);
  const adml = `<?xml version="1.0" encoding="utf-8"?>
<!-- Seller Tray's policies, in English (generated by build/policies/make-templates.ts). -->
<policyDefinitionResources xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" revision="1.0" schemaVersion="1.0" xmlns="${NAMESPACE}">
  <displayName>Seller Tray</displayName>
  <description>Policies for Seller Tray: the marketplace, checking, updates and what users may change.</description>
  <resources>
    <stringTable>
      <string id="SellerTray">Seller Tray</string>
      <string id="SellerTray_Recommended">Recommended (users may change)</string>
      <string id="SUPPORTED_SellerTray">Seller Tray 0.1 and later</string>
${all.flatMap(([o, r]) => admlStrings(o, r).map((line) => `      ${line}`)).join('\n')}
    </stringTable>
    <presentationTable>
${presentations.map((line) => `      ${line}`).join('\n')}
    </presentationTable>
  </resources>
</policyDefinitionResources>
`;
  return { admx, adml };
}

export const POLICIES_DIR = dirname(fileURLToPath(import.meta.url));

export async function writeTemplates(outDir: string = POLICIES_DIR): Promise<string[]> {
  const { admx, adml } = templates();
  const files = [join(outDir, 'SellerTray.admx'), join(outDir, 'en-US', 'SellerTray.adml')];
  await mkdir(join(outDir, 'en-US'), { recursive: true });
  await writeFile(files[0] as string, admx);
  await writeFile(files[1] as string, adml);
  return files;
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  for (const file of await writeTemplates()) console.log(`wrote ${file}`);
}
