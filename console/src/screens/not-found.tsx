import type { ScreenEntry } from '../logic/access';
import { Link, Screen } from '../ui/components';

/** A console address no screen has (a mistyped or old link): said, with the way to the viewer's first screen. */
export function NotFoundScreen(props: { home: ScreenEntry }) {
  return (
    <Screen title="Page not found">
      <p>The console has no page at this address.</p>
      <p>
        <Link href={props.home.path}>{props.home.label}</Link>
      </p>
    </Screen>
  );
}
