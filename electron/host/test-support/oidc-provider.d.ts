// The few parts of oidc-provider (a devDependency with no types of its own)
// that the test authorization server uses.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  export interface KoaContext {
    path: string;
    method: string;
    status: number;
    body: unknown;
    request: { body?: Record<string, unknown> };
    oidc?: { params?: Record<string, unknown>; client?: { clientId: string } };
    set(name: string, value: string): void;
  }

  export interface TokenRecord {
    accountId?: string;
    scope?: string;
    clientId?: string;
    isExpired?: boolean;
    grantId?: string;
    destroy(): Promise<void>;
  }

  interface TokenModel {
    find(value: string, options?: { ignoreExpiration?: boolean }): Promise<TokenRecord | undefined>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    proxy: boolean;
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): void;
    AccessToken: TokenModel;
    RefreshToken: TokenModel;
  }
}
