/**
 * `workbench auth login|status|logout`: a person's OAuth2 sign-in to an API
 * from a terminal. `login` opens the authorization page in the system
 * browser and waits on a one-shot loopback listener for the redirect;
 * `login --device` prints a URL and a code to enter anywhere (a terminal over
 * SSH, a headless server) and polls as the server asks. Tokens go to the
 * vault and are never printed, not even in part.
 */
import type { Command } from "commander";
import type { SignInView } from "../../shared/contract.ts";
import type { SignInOutcome } from "../host/oauth/sign-ins.ts";
import { openInBrowser } from "../serve/open-browser.ts";
import { withWorkbench, type DataDirFlag } from "./context.ts";
import { CliError, printJson, type CliIo } from "./io.ts";

interface LoginOptions extends DataDirFlag {
  device?: boolean;
  authorizationUrl?: string;
  deviceAuthorizationUrl?: string;
  tokenUrl?: string;
  scope: string[];
  clientId?: string;
  browser: boolean;
  timeout?: string;
}

export function registerAuthCommands(program: Command, io: CliIo): void {
  const auth = program.command("auth").description("Sign in to APIs with OAuth2 (authorization code with PKCE, or device authorization); see who is signed in; sign out.");

  auth
    .command("login")
    .description("Sign in to an API: in the system browser (authorization code with PKCE), or with a code entered on any device (--device).")
    .argument("<api>", "the API's name")
    .option("--device", "sign in with a code entered at a URL on any device (RFC 8628), for terminals with no browser beside them")
    .option("--scope <SCOPE>", "a scope to ask for (repeatable; default: the API's configured scopes, else those its operations require)", collect, [])
    .option("--client-id <ID>", "the OAuth client id registered for the workbench at the provider (saved as the API's client id)")
    .option("--no-browser", "print the sign-in URL instead of opening the system browser")
    .option("--device-authorization-url <URL>", "for a spec that declares no OAuth2 scheme: where to ask for a device code (saved with the API)")
    .option("--authorization-url <URL>", "for a spec that declares no OAuth2 scheme: the browser sign-in page (saved with the API)")
    .option("--token-url <URL>", "for a spec that declares no OAuth2 scheme: where codes become tokens (saved with the API)")
    .option("--data-dir <DIR>", "the workbench data directory")
    .addHelpText(
      "after",
      "\nExamples:\n  workbench auth login notes\n  workbench auth login github --device --client-id Ov23liABCDEF12345678 --scope repo \\\n    --device-authorization-url https://github.com/login/device/code --token-url https://github.com/login/oauth/access_token",
    )
    .action(async (api: string, options: LoginOptions) => {
      await withWorkbench(io, options, async (workbench) => {
        const endpoints = {
          ...(options.authorizationUrl ? { authorizationUrl: options.authorizationUrl } : {}),
          ...(options.deviceAuthorizationUrl ? { deviceAuthorizationUrl: options.deviceAuthorizationUrl } : {}),
          ...(options.tokenUrl ? { tokenUrl: options.tokenUrl } : {}),
        };
        const base = { ...(options.scope.length ? { scopes: options.scope } : {}), ...(options.clientId ? { clientId: options.clientId } : {}), endpoints };
        let outcome: SignInOutcome;
        if (options.device) {
          let toldPending = false;
          const started = await workbench.signIns.startDevice(api, {
            ...base,
            onPoll: (event) => {
              if (event.kind === "slow_down") io.stderr(`the server asked to slow down; asking every ${event.interval} s\n`);
              else if (!toldPending) {
                toldPending = true;
                io.stderr("waiting for you to enter the code and approve (the server says: authorization pending)...\n");
              }
            },
          });
          if (!started.start.ok) throw new CliError(started.start.message);
          const s = started.start;
          if (s.kind !== "device") throw new CliError("unexpected answer");
          const minutes = Math.max(1, Math.round((Date.parse(s.expiresAt) - Date.now()) / 60_000));
          io.stdout(`To sign in to ${api}, open ${s.verificationUri} and enter the code ${s.userCode} (it expires in ${minutes} minute${minutes === 1 ? "" : "s"}).\n`);
          if (s.verificationUriComplete) io.stdout(`Or open ${s.verificationUriComplete}, which carries the code.\n`);
          outcome = await started.done!;
        } else {
          const open = options.browser ? (io.openUrl ?? openSystemBrowser) : undefined;
          const started = await workbench.signIns.startBrowser(api, { ...base, ...(open ? { open } : {}) });
          if (!started.start.ok) throw new CliError(started.start.message);
          const s = started.start;
          if (s.kind !== "browser") throw new CliError("unexpected answer");
          io.stdout(s.opened ? `Opened your browser to sign in to ${api}. If it did not open, visit:\n  ${s.url}\n` : `To sign in to ${api}, open this in a browser on this machine:\n  ${s.url}\n`);
          io.stderr("waiting for the browser (Ctrl-C to stop)...\n");
          outcome = await started.done!;
        }
        if (!outcome.ok) throw new CliError(`not signed in to ${api}: ${outcome.message}`);
        io.stdout(`${outcome.message}\n${describeView(outcome.view)}\n`);
      });
    });

  auth
    .command("status")
    .description("Who is signed in to which API, with which scopes, until when (never a token).")
    .option("--json", "print JSON")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action(async (options: DataDirFlag & { json?: boolean }) => {
      await withWorkbench(io, options, async (workbench) => {
        const views = await workbench.signIns.status();
        if (options.json) return printJson(io, views);
        if (views.length === 0) return void io.stdout("no registered API takes a sign-in (an oauth2 scheme with an authorizationCode or deviceAuthorization flow, or openIdConnect)\n");
        io.stdout(`${views.map(describeView).join("\n")}\n`);
      });
    });

  auth
    .command("logout")
    .description("Sign out of an API: revoke its tokens at the server where it offers RFC 7009, and delete them from the vault.")
    .argument("<api>", "the API's name")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action(async (api: string, options: DataDirFlag) => {
      await withWorkbench(io, options, async (workbench) => {
        const result = await workbench.signIns.logout(api);
        if (!result.ok) throw new CliError(result.message);
        io.stdout(`${result.message}\n`);
      });
    });
}

/** Two lines per API: the state, then the facts (who, scopes, until when) or what to do. */
export function describeView(view: SignInView): string {
  const facts: string[] = [];
  if (view.who) facts.push(`as ${view.who}`);
  if (view.state === "signed_in" || view.state === "expired") facts.push(`scopes: ${view.scopes.length ? view.scopes.join(" ") : "(none)"}`);
  if (view.state === "signed_in") facts.push(view.expiresAt ? `access token until ${view.expiresAt}${Date.parse(view.expiresAt) < Date.now() ? " (renewed on the next call)" : ""}` : "no expiry given");
  const state = { signed_in: "signed in", expired: "EXPIRED", signed_out: "not signed in", signing_in: "signing in...", unreadable: "UNREADABLE" }[view.state];
  const lines = [`${view.api}  ${state}${facts.length ? `  ${facts.join(", ")}` : ""}`];
  if (view.problem) lines.push(`  ${view.problem}`);
  else if (view.state === "signed_out") lines.push(view.ready.ok ? `  sign in: workbench auth login ${view.api}` : `  ${view.ready.message}`);
  return lines.join("\n");
}

async function openSystemBrowser(url: string): Promise<void> {
  const problem = await openInBrowser(url);
  if (problem) throw new Error(problem);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
