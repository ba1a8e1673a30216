import { useEffect, useRef } from 'preact/hooks';
import { call } from '../api/client';
import { LocalTime, useConsole } from '../ui/components';
import { useLoad } from '../ui/use-load';

/** When a pending user's invitation link expires (GET /v1/users/{id} answers it), in words. */
export function InvitationExpiry(props: { iso: string | undefined }) {
  if (!props.iso) return <>Not sent yet</>;
  return Date.parse(props.iso) > Date.now() ? (
    <>
      Expires <LocalTime iso={props.iso} />
    </>
  ) : (
    <>
      Expired <LocalTime iso={props.iso} />: resend it to send a new link
    </>
  );
}

/** How often, and how many times, a row whose link is not sent yet asks again (the mailer sends it in the background). */
const NOT_SENT_RETRY_MS = 1500;
const NOT_SENT_RETRIES = 5;

/**
 * A row's expiry on the invitations screen: the list's pages stay one statement (no invitation read per user
 * listed), so each pending row asks for its user once, after the page has shown, and again a few times while
 * its link is not sent yet (just invited or resent: the mailer issues the link in the background).
 */
export function PendingInvitationExpiry(props: { userId: string; version: number }) {
  const { api } = useConsole();
  const user = useLoad(() => call(api.GET('/v1/users/{id}', { params: { path: { id: props.userId } } })), `${props.userId}-${props.version}`);
  const retries = useRef(0);
  const notSent = user.state === 'ready' && !user.data?.invitation_expires_date;
  useEffect(() => {
    if (!notSent || retries.current >= NOT_SENT_RETRIES) return undefined;
    const timer = setTimeout(() => {
      retries.current += 1;
      user.reload();
    }, NOT_SENT_RETRY_MS);
    return () => clearTimeout(timer);
  }, [notSent, user.data]);
  if (user.state === 'failed') return <>—</>;
  if (!user.data) return <span class="hint">…</span>;
  return <InvitationExpiry iso={user.data.invitation_expires_date} />;
}
