// "About Seller Tray" in Settings: the version, its update channel, who updates this copy (the
// app itself, the package manager, nobody) and what the last check found, with "Check for updates"
// where the app updates itself. Kept current by the main process's update-status events.
import { useEffect, useId, useState } from 'react';
import type { UpdateStatus } from '../../preload/contract';
import type { Explained } from '../../preload/model';
import { call, explained } from '../bridge/call';
import { useBridge, useBridgeEvents } from '../bridge/context';
import { useBridgeCall } from '../hooks/useBridgeCall';
import { ErrorAlert } from './ErrorAlert';
import { FieldList } from './FieldList';
import { Time } from './Time';

/** Who updates this copy, in words. */
const WHO_UPDATES: Record<UpdateStatus['availability'], string> = {
  updater:
    'Seller Tray updates itself: it downloads a new version in the background and asks you to restart (tray menu → Restart to update).',
  'no-feed':
    'This build of Seller Tray has no update server, so it does not update itself: install new versions by hand.',
  'package-manager': 'Seller Tray was installed as a package: your package manager (such as apt) updates it.',
  managed:
    'Your organization installs the updates of Seller Tray on this computer: it does not update itself.',
  development: 'A development run: it is updated from its source, not by itself.',
  unsupported: 'This copy of Seller Tray cannot update itself: install new versions by hand.',
};

export function AboutPanel() {
  const bridge = useBridge();
  const headingId = useId();
  const [status, setStatus] = useState<UpdateStatus | null>(null);
  const [loadError, setLoadError] = useState<Explained | null>(null);
  const check = useBridgeCall('checkForUpdates', undefined);

  useEffect(() => {
    call(bridge, 'getUpdateStatus', undefined).then(setStatus, (failure: unknown) =>
      setLoadError(explained(failure)),
    );
  }, [bridge]);
  useEffect(() => {
    if (check.answer) setStatus(check.answer);
  }, [check.answer]);
  useBridgeEvents((event) => {
    if (event.type === 'update-status') setStatus(event.status);
  });

  const checking = check.busy || status?.checking === true;
  return (
    <section className="about" aria-labelledby={headingId}>
      <h3 id={headingId}>About Seller Tray</h3>
      <ErrorAlert problem={loadError} onDismiss={() => setLoadError(null)} />
      <ErrorAlert problem={check.error} onDismiss={check.dismissError} />
      {status && (
        <>
          <FieldList
            label="About Seller Tray"
            fields={[
              ['Version', status.version],
              ['Channel', status.channel],
              ['Updates', WHO_UPDATES[status.availability]],
              [
                'Last check',
                status.lastCheck ? (
                  <>
                    <Time iso={status.lastCheck.at} />: {status.lastCheck.result}
                  </>
                ) : status.availability === 'updater' ? (
                  'Not checked yet'
                ) : (
                  'None'
                ),
              ],
            ]}
          />
          {status.ready !== null && (
            <p role="status">
              {status.restartWaitsFor !== null
                ? `Seller Tray will restart to update to ${status.ready} when ${status.restartWaitsFor === 1 ? '1 status has' : `${status.restartWaitsFor} statuses have`} been sent.`
                : `Seller Tray ${status.ready} is ready — restart to update (tray menu → Restart to update).`}
            </p>
          )}
          {status.availability === 'updater' && (
            <button type="button" onClick={() => void check.run()} disabled={checking}>
              {checking ? 'Checking for updates…' : 'Check for updates'}
            </button>
          )}
        </>
      )}
    </section>
  );
}
