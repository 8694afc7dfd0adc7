// The settings store as the app and the CLI open it: the user's file with the organization's
// policies applied on every read, and only the user's own choices written back (layers.ts). A
// value someone writes into settings.json over a lock is read but never in force, and a save that
// would change a locked setting is refused here, whichever way it came (the window, a CLI command,
// a channel of its own such as the accounts'), so no path can forget the check.
import { CodedError } from '../../../preload/coded-error';
import type { Settings, SettingsLoad, SettingsStore } from '../settings';
import { applyPolicies, type Policies, policyRefusals, userSettingsAfter } from './layers';
import type { PolicyPort } from './watcher';

export class ManagedSettingsStore implements SettingsStore {
  /** The user's settings as last read or saved: what the policies are applied over. */
  private user: Settings | undefined;

  constructor(
    private readonly inner: SettingsStore,
    private readonly policies: PolicyPort,
  ) {}

  load(): SettingsLoad {
    const { settings, problem, unusable } = this.inner.load();
    this.user = settings;
    return {
      settings: applyPolicies(settings, this.policies.current()),
      ...(problem ? { problem } : {}),
      ...(unusable ? { unusable } : {}),
    };
  }

  /** The user's file as another process left it, under the policies; undefined while it cannot be used. */
  reread(): SettingsLoad | undefined {
    const read = this.inner.reread?.();
    if (read === undefined) return undefined;
    this.user = read.settings;
    return { ...read, settings: applyPolicies(read.settings, this.policies.current()) };
  }

  /** Throws a CodedError 'managed', naming each field, when `settings` would change what a policy locks. */
  save(settings: Settings): void {
    const policies = this.policies.current();
    const refused = policyRefusals(settings, policies);
    if (refused.length > 0) {
      throw new CodedError('managed', refused.map((r) => r.message).join('; '), {
        fields: refused.map(({ field, message }) => ({ field: field ?? '', message })),
      });
    }
    const user = userSettingsAfter(settings, this.userSettings(), policies);
    this.inner.save(user);
    this.user = user;
  }

  /** The settings in force under `policies` (after a policy change). */
  inForce(policies: Policies = this.policies.current()): Settings {
    return applyPolicies(this.userSettings(), policies);
  }

  private userSettings(): Settings {
    this.user ??= this.inner.load().settings;
    return this.user;
  }
}
