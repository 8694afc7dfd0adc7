// What "Test connection" found, in words that say what to do about it.
import type { ConnectionTest } from '../../preload/contract';
import { ServerText } from './ServerText';

type Failure = Extract<ConnectionTest, { ok: false }>;

const ADVICE: Readonly<Record<Failure['reason'], string>> = {
  'invalid-url': 'The base URL is not a usable address. Check it against what the marketplace gave you.',
  unreachable:
    'The marketplace could not be reached. Check the base URL and your network connection (a VPN or proxy may be needed).',
  tls: "The connection is not secure: the server's certificate was refused. Check the base URL, or ask your IT team about the certificate.",
  credentials:
    'The marketplace did not accept the client id and secret. Check both, and that the secret is current.',
  'wrong-address':
    'Something answered at this address, but not the Seller API: the base URL (its path) is probably wrong. Check it against what the marketplace gave you.',
  refused:
    'The marketplace refused the test. Check the base URL and the client id; the words below say what it answered.',
  server:
    'The marketplace is having problems (a server error or too many requests). Try again in a few minutes.',
};

/** `note` says what followed from the result (a Save refused because of it). */
export function ConnectionTestResult({
  result,
  note,
}: {
  result: ConnectionTest;
  note?: string | undefined;
}) {
  if (result.ok) {
    return (
      <div className="result result-ok" role="status">
        <strong>Connection works.</strong>{' '}
        {result.sellerId === null
          ? 'The marketplace accepted the credentials.'
          : `Signed in as seller ${result.sellerId}.`}
        {/* The stage is an API code; said only when it is not production, which matters to know. */}
        {result.stage && !/^prod(uction)?$/i.test(result.stage) && (
          <>
            {' '}
            This is the marketplace's “<ServerText text={result.stage} />” stage, not production.
          </>
        )}
      </div>
    );
  }
  return (
    <div className={`result result-failed reason-${result.reason}`} role="alert">
      <strong>{ADVICE[result.reason] ?? 'The connection test failed.'}</strong>
      {note && ` ${note}`}
      {result.message && (
        <span className="result-detail">
          <ServerText text={result.message} />
        </span>
      )}
    </div>
  );
}
