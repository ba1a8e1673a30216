import { useEffect, useState } from 'preact/hooks';
import type { Client } from './api/client';
import { allowed, homePath, type Route, routeOf, screensFor } from './logic/access';
import { createFeedback } from './logic/feedback';
import { displayName } from './logic/format';
import { AccountScreen } from './screens/account';
import { AuditScreen } from './screens/audit';
import { EnrollmentScreen } from './screens/enrollment';
import { InvitationsScreen } from './screens/invitations';
import { NotFoundScreen } from './screens/not-found';
import { RolesScreen } from './screens/roles';
import { ServiceAccountsScreen } from './screens/service-accounts';
import { SessionInterrupted } from './screens/session-interrupted';
import { SignInScreen } from './screens/sign-in';
import { UserScreen } from './screens/user-page';
import { UsersScreen } from './screens/users-list';
import type { Session, SessionState } from './session/session';
import { Console, FailureNote, Link, Screen } from './ui/components';
import { navigate, useLocation } from './ui/router';
import { useAction } from './ui/use-load';

export function App(props: { session: Session; api: Client }) {
  const [state, setState] = useState<SessionState>(props.session.current());
  const [feedback] = useState(createFeedback);
  useEffect(() => props.session.subscribe(setState), [props.session]);
  // The first screen (sign-in, or the screen a kept session opens) is on the page: what `npm run bench` times.
  useEffect(() => {
    if (state.status !== 'restoring' && performance.getEntriesByName('console:first-screen').length === 0) performance.mark('console:first-screen');
  }, [state.status]);

  if (state.status === 'restoring') return <p class="boot" role="status">Opening the console…</p>;
  if (state.status === 'signed-out') return <SignInScreen session={props.session} notice={state.notice} />;
  if (state.status === 'interrupted') return <SessionInterrupted session={props.session} failure={state.failure} />;
  const context = { api: props.api, session: props.session, permissions: state.me.role.permissions, viewerId: state.me._id, feedback };
  return (
    <Console.Provider value={context}>
      <Shell state={state} session={props.session} />
    </Console.Provider>
  );
}

function Shell(props: { state: Extract<SessionState, { status: 'signed-in' }>; session: Session }) {
  const where = useLocation();
  const { me, enrollmentOnly } = props.state;
  const permissions = enrollmentOnly ? [] : me.role.permissions;
  const screens = enrollmentOnly ? [] : screensFor(permissions);
  const route = routeOf(where.pathname);
  const screen = route?.screen ?? null;
  const signOut = useAction();

  useEffect(() => {
    if (!enrollmentOnly && where.pathname === '/console') navigate(homePath(permissions), { replace: true });
  }, [where.pathname, enrollmentOnly]);

  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to the content
      </a>
      <header class="top">
        <p class="brand">Access control</p>
        {screens.length > 0 && (
          <nav aria-label="Console">
            <ul>
              {screens.map((entry) => (
                <li key={entry.screen}>
                  <Link href={entry.path} aria-current={entry.screen === screen ? 'page' : undefined}>
                    {entry.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        )}
        <div class="who">
          <span>
            Signed in as <strong>{displayName(me)}</strong> ({me.role.name})
          </span>
          <button type="button" class="secondary" disabled={signOut.busy} onClick={() => void signOut.run(() => props.session.signOut())}>
            Sign out
          </button>
        </div>
        <FailureNote failure={signOut.failure} onRetry={() => void signOut.run(() => props.session.signOut())} />
      </header>
      <main id="main">
        {enrollmentOnly ? (
          <EnrollmentScreen />
        ) : where.pathname === '/console' ? null /* on its way to the first screen */ : !route ? (
          <NotFoundScreen home={screens[0]!} />
        ) : allowed(permissions, route.screen) ? (
          <Routed route={route} search={where.search} />
        ) : (
          <Screen title="Not available">
            <p>Your role does not allow this screen.</p>
          </Screen>
        )}
      </main>
    </div>
  );
}

function Routed(props: { route: Route; search: string }) {
  const { screen, id } = props.route;
  switch (screen) {
    case 'users':
      // Keyed by id, as a role's page is: another user's page never shows this one's form fields.
      return id ? <UserScreen key={id} id={id} search={props.search} /> : <UsersScreen search={props.search} />;
    case 'invitations':
      return <InvitationsScreen />;
    case 'roles':
      return <RolesScreen id={id} search={props.search} />;
    case 'service-accounts':
      return <ServiceAccountsScreen id={id} search={props.search} />;
    case 'audit':
      return <AuditScreen search={props.search} />;
    case 'account':
      return <AccountScreen />;
  }
}
