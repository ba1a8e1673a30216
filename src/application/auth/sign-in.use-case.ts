import type { Role } from '../../domain/roles/role';
import { InvalidCredentialsError } from '../../domain/users/user.errors';
import { Username } from '../../domain/users/username';
import type { PasswordHasher } from '../ports/password-hasher.port';
import type { RoleRepository } from '../ports/role-repository.port';
import type { TokenIssuer } from '../ports/token-issuer.port';
import type { UserRepository } from '../ports/user-repository.port';

export interface SignInInput {
  username: string;
  password: string;
}

export interface SignInResult {
  name: string;
  username: string;
  email: string;
  role: { name: string; permissions: string[] };
  accessToken: string;
}

export class SignInUseCase {
  private readonly users: UserRepository;
  private readonly roles: RoleRepository;
  private readonly hasher: PasswordHasher;
  private readonly tokens: TokenIssuer;

  constructor(deps: {
    userRepository: UserRepository;
    roleRepository: RoleRepository;
    passwordHasher: PasswordHasher;
    tokenIssuer: TokenIssuer;
  }) {
    this.users = deps.userRepository;
    this.roles = deps.roleRepository;
    this.hasher = deps.passwordHasher;
    this.tokens = deps.tokenIssuer;
  }

  async execute({ username, password }: SignInInput): Promise<SignInResult> {
    const user = await this.users.findByUsername(Username.normalize(username));
    // The hash is checked in every case (a dummy one when there is none), so an unknown
    // or pending user costs the same time as a wrong password.
    const hash = user?.isJoined ? user.passwordHash : undefined;
    const matches = await this.hasher.verify(password, hash);
    if (!user || !matches || !user.isJoined) throw new InvalidCredentialsError();

    const role: Role | null = await this.roles.findById(user.roleId);
    if (!role) throw new InvalidCredentialsError();
    const { token } = await this.tokens.issue(user.id);
    return {
      name: user.name ?? '',
      username: user.username ?? '',
      email: user.email,
      role: { name: role.name, permissions: [...role.permissions] },
      accessToken: token,
    };
  }
}
