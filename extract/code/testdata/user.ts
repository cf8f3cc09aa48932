/**
 * The stored attributes of a user.
 * Every field is required.
 */
export interface UserAttributes {
  /** Stable identifier. */
  id: string;
  /** Login e-mail address. */
  email: string;
  /** Display name. */
  name: string;
  /** When the account was created. */
  createdAt: Date;
  /** Roles granted to the user. */
  roles: string[];
  /** Whether the e-mail was verified. */
  verified: boolean;
  /** Save hook. */
  save(): Promise<void>;
}

export class User implements UserAttributes {
  id: string;
  email: string;
  name: string;
  createdAt: Date;
  roles: string[] = [];
  verified = false;

  constructor(attrs: UserAttributes) {
    Object.assign(this, attrs);
  }

  async save(): Promise<void> {}
}

// Repository of users.
@Injectable()
export class UserRepository {
  private readonly users = new Map<string, User>();

  /** Find by id; overloads take an id or an e-mail. */
  find(id: string): User | undefined;
  find(query: { email: string }): User | undefined;
  find(q: string | { email: string }): User | undefined {
    if (typeof q === "string") {
      return this.users.get(q);
    }
    return [...this.users.values()].find((u) => u.email === q.email);
  }

  @Transactional()
  @Log("save")
  save(user: User): void {
    this.users.set(user.id, user);
  }

  static Admin = class {
    grant(): void {}
  };
}

export type UserID = string;

export enum Role {
  Admin = "admin",
  Member = "member",
}

export namespace Users {
  export function create(email: string): User {
    return new User({ id: email, email, name: "", createdAt: new Date(), roles: [], verified: false, save: async () => {} });
  }
}

export const MAX_USERS = 1000;

export const normalize = (email: string): string => email.trim().toLowerCase();

function Injectable(): ClassDecorator {
  return () => {};
}
