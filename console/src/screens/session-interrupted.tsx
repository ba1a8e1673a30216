import { useEffect, useState } from 'preact/hooks';
import { explain, type Failure } from '../logic/problems';
import type { Session } from '../session/session';

/**
 * The session could not be renewed on load, and not because it ended (that is a 401, and the sign-in form): the
 * reason in words (a rate limit with its wait, the service down, the network) and a retry of the renewal.
 */
export function SessionInterrupted(props: { session: Session; failure: Failure }) {
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Session not renewed · Access control console';
  }, []);
  const retry = async () => {
    setBusy(true);
    // Leaves this screen when it succeeds; otherwise the state is set again with the new failure (a new wait).
    await props.session.restore();
    setBusy(false);
  };
  return (
    <main id="main" class="sign-in">
      <h1>Access control console</h1>
      <div class="failure" role="alert">
        <p>The console could not renew your session. {explain(props.failure).message}</p>
        <button type="button" disabled={busy} onClick={() => void retry()}>
          {busy ? 'Trying again…' : 'Try again'}
        </button>
      </div>
    </main>
  );
}
