import { ValidationError } from '../../domain/shared/domain-error';
import { parseDisplayName } from '../../domain/users/display-name';
import { Email } from '../../domain/users/email';
import { assertAcceptablePassword, assertPasswordNotAccountName } from '../../domain/users/password-policy';
import { Username } from '../../domain/users/username';
import { FileCommonPasswords } from '../security/file-common-passwords';

/**
 * What the bootstrap (CreateAdminUseCase) would refuse in ADMIN_*, found before the database is touched, so a
 * bad value stops the start with the configuration's message instead of a fatal line with a stack after the
 * migrations. The same domain rules, one line a problem (`ADMIN_PASSWORD: must be 12 to 128 characters long`):
 * never the password itself.
 */
export function adminBootstrapProblems(admin: { username: string; password: string; email: string; name?: string }): string[] {
  const problems: string[] = [];
  const check = <T>(parse: () => T): T | undefined => {
    try {
      return parse();
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      problems.push(...error.problems.map((p) => `${p.field}: ${p.message}`));
      return undefined;
    }
  };
  const username = check(() => Username.parse(admin.username, 'ADMIN_USERNAME'));
  const email = check(() => Email.parse(admin.email, 'ADMIN_EMAIL'));
  check(() => parseDisplayName(admin.name ?? admin.username, 'ADMIN_NAME'));
  const common = new FileCommonPasswords();
  const acceptable = check(() => {
    assertAcceptablePassword(admin.password, 'ADMIN_PASSWORD', (p) => common.includes(p));
    return true;
  });
  if (acceptable) check(() => assertPasswordNotAccountName(admin.password, { username: username?.value, email: email?.value }, 'ADMIN_PASSWORD'));
  return problems;
}
