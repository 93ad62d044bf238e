/**
 * The vault: secrets by item and field, each item with the APIs it may be sent
 * to. Values stay masked; revealing one is an explicit act and hides again by
 * itself. Programs only ever see references.
 */
import { useEffect, useId, useState } from "react";
import type { VaultItemView } from "../../shared/contract.ts";
import { errorMessage } from "../bridge/index.ts";
import { useToast } from "../app/toasts.tsx";
import { useChannel, useWorkbench } from "../app/workbench-context.tsx";
import { CopyButton } from "../common/CopyButton.tsx";
import "./VaultView.css";

const NAME = /^[A-Za-z0-9_.-]+$/;
const REVEAL_MS = 30_000;

export function VaultView() {
  const items = useChannel("vault.list", {}, ["vault.changed"]);
  const apis = useChannel("apis.list", {}, ["apis.changed"]);
  const [adding, setAdding] = useState(false);
  const apiNames = apis.data?.map((a) => a.name) ?? [];

  return (
    <div className="view vault scroll">
      <header className="view-head">
        <h1>Vault</h1>
        <span className="spacer" />
        {!adding && (
          <button className="btn btn-primary" onClick={() => setAdding(true)}>
            Add a secret
          </button>
        )}
      </header>
      <p className="muted vault-intro">
        A program sees <code>vault.&lt;item&gt;.&lt;field&gt;</code> as a reference like <code>⟦vault:github/token⟧</code>, never the value. The host puts
        the value in only when it sends to an API the item allows, asks you before such a call goes out, and hides the value in every response, log and
        record.
      </p>
      {adding && <SecretForm apiNames={apiNames} onDone={() => setAdding(false)} />}
      {items.error && (
        <div className="error-banner" role="alert">
          <span>
            <strong>Could not open the vault.</strong> {items.error}
          </span>
          <button className="btn btn-small" onClick={items.reload}>
            Retry
          </button>
        </div>
      )}
      {items.data && items.data.length === 0 && !adding && (
        <div className="empty">
          <h2>No secrets yet</h2>
          <p>Add an API token or password, choose the APIs it may go to, then use it in a program or as an API's credential.</p>
        </div>
      )}
      <div className="vault-items">
        {items.data?.map((item) => (
          <VaultItem key={item.name} item={item} apiNames={apiNames} />
        ))}
      </div>
    </div>
  );
}

function SecretForm({ apiNames, onDone, item: fixedItem }: { apiNames: string[]; onDone: () => void; item?: VaultItemView }) {
  const api = useWorkbench();
  const notify = useToast();
  const [item, setItem] = useState(fixedItem?.name ?? "");
  const [field, setField] = useState(fixedItem ? "" : "token");
  const [value, setValue] = useState("");
  const [show, setShow] = useState(false);
  const [allow, setAllow] = useState<Set<string>>(new Set(fixedItem?.allowApis ?? []));
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const formId = useId();
  const itemProblem = item && !NAME.test(item) ? "Letters, digits, dot, dash and underscore only." : undefined;
  const fieldProblem = field && !NAME.test(field) ? "Letters, digits, dot, dash and underscore only." : undefined;

  const save = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const ack = await api["vault.set"]({ item, field, value, ...(fixedItem ? {} : { allowApis: [...allow] }) });
      if (!ack.ok) setError(ack.message);
      else {
        notify({ kind: "success", text: `Saved ${item}/${field}. Use it as vault.${item}.${field}.` });
        onDone();
      }
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="card vault-form"
      aria-label={fixedItem ? `Add a field to ${fixedItem.name}` : "Add a secret"}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <div className="vault-form-row">
        <label className="field">
          <span className="field-label">Item</span>
          <input className="input" value={item} onChange={(e) => setItem(e.target.value)} disabled={!!fixedItem} placeholder="github" required autoFocus={!fixedItem} />
          {itemProblem && <span className="field-error">{itemProblem}</span>}
        </label>
        <label className="field">
          <span className="field-label">Field</span>
          <input className="input" value={field} onChange={(e) => setField(e.target.value)} placeholder="token" required autoFocus={!!fixedItem} />
          {fieldProblem && <span className="field-error">{fieldProblem}</span>}
        </label>
        <div className="field vault-value">
          <label className="field-label" htmlFor={`${formId}-value`}>
            Value
          </label>
          <span className="vault-value-input">
            <input id={`${formId}-value`} className="input" type={show ? "text" : "password"} value={value} onChange={(e) => setValue(e.target.value)} autoComplete="off" spellCheck={false} required />
            <button type="button" className="btn btn-small btn-ghost" onClick={() => setShow(!show)} aria-pressed={show} aria-label="Show the value">
              {show ? "Hide" : "Show"}
            </button>
          </span>
        </div>
      </div>
      {!fixedItem && (
        <fieldset className="vault-allow">
          <legend className="field-label">May be sent to</legend>
          {apiNames.length === 0 && <span className="muted">No APIs yet; allow some later.</span>}
          {apiNames.map((n) => (
            <label key={n} className="vault-check">
              <input type="checkbox" checked={allow.has(n)} onChange={() => setAllow(toggle(allow, n))} />
              {n}
            </label>
          ))}
        </fieldset>
      )}
      {error && (
        <div className="error-banner" role="alert">
          {error}
        </div>
      )}
      <div className="toolbar">
        <button type="submit" className="btn btn-primary" disabled={busy || !item || !field || !value || !!itemProblem || !!fieldProblem}>
          Save secret
        </button>
        <button type="button" className="btn" onClick={onDone}>
          Cancel
        </button>
        <span className="muted">The value is encrypted at rest and never shown to programs or agents.</span>
      </div>
    </form>
  );
}

function VaultItem({ item, apiNames }: { item: VaultItemView; apiNames: string[] }) {
  const api = useWorkbench();
  const notify = useToast();
  const [editingAllow, setEditingAllow] = useState(false);
  const [allow, setAllow] = useState(new Set(item.allowApis));
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [addingField, setAddingField] = useState(false);

  const act = async (what: string, call: () => Promise<{ ok: boolean; message?: string }>) => {
    try {
      const ack = await call();
      if (!ack.ok) notify({ kind: "error", text: `${what}: ${ack.message ?? "refused"}` });
      return ack.ok;
    } catch (err) {
      notify({ kind: "error", text: `${what}: ${errorMessage(err)}` });
      return false;
    }
  };

  return (
    <section className="card vault-item" aria-label={`Vault item ${item.name}`}>
      <header className="vault-item-head">
        <h2>{item.name}</h2>
        <span className="muted">may be sent to</span>
        {editingAllow ? (
          <span className="vault-allow-edit">
            {apiNames.map((n) => (
              <label key={n} className="vault-check">
                <input type="checkbox" checked={allow.has(n)} onChange={() => setAllow(toggle(allow, n))} />
                {n}
              </label>
            ))}
            <button
              className="btn btn-small btn-primary"
              onClick={async () => {
                if (await act("Allowed APIs not saved", () => api["vault.allow"]({ item: item.name, apis: [...allow] }))) setEditingAllow(false);
              }}
            >
              Save
            </button>
            <button className="btn btn-small" onClick={() => (setAllow(new Set(item.allowApis)), setEditingAllow(false))}>
              Cancel
            </button>
          </span>
        ) : (
          <>
            {item.allowApis.length ? item.allowApis.map((a) => <span key={a} className="pill pill-accent">{a}</span>) : <span className="pill pill-warn">no API yet</span>}
            <button className="btn btn-small btn-ghost" onClick={() => setEditingAllow(true)}>
              Change
            </button>
          </>
        )}
        <span className="spacer" />
        {confirmDelete ? (
          <span className="toolbar">
            <span>
              Delete {item.name} and its {item.fields.length} field{item.fields.length === 1 ? "" : "s"}?
            </span>
            <button className="btn btn-small btn-danger" onClick={() => act("Not deleted", () => api["vault.remove"]({ item: item.name }))}>
              Delete
            </button>
            <button className="btn btn-small" onClick={() => setConfirmDelete(false)}>
              Keep
            </button>
          </span>
        ) : (
          <button className="btn btn-small btn-ghost" onClick={() => setConfirmDelete(true)}>
            Delete item
          </button>
        )}
      </header>
      <table className="grid vault-fields">
        <thead>
          <tr>
            <th>Field</th>
            <th>Value</th>
            <th>In a program</th>
            <th>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {item.fields.map((f) => (
            <FieldRow key={f.name} item={item.name} field={f} act={act} />
          ))}
        </tbody>
      </table>
      {addingField ? (
        <SecretForm apiNames={apiNames} item={item} onDone={() => setAddingField(false)} />
      ) : (
        <button className="btn btn-small vault-add-field" onClick={() => setAddingField(true)}>
          Add a field
        </button>
      )}
    </section>
  );
}

function FieldRow({ item, field, act }: { item: string; field: VaultItemView["fields"][number]; act: (what: string, call: () => Promise<{ ok: boolean; message?: string }>) => Promise<boolean> }) {
  const api = useWorkbench();
  const notify = useToast();
  const [revealed, setRevealed] = useState<string>();
  const [replacing, setReplacing] = useState(false);
  const [value, setValue] = useState("");
  const reference = `vault${access(item)}${access(field.name)}`;

  useEffect(() => {
    if (revealed === undefined) return;
    const t = setTimeout(() => setRevealed(undefined), REVEAL_MS);
    return () => clearTimeout(t);
  }, [revealed]);

  if (field.hostOnly) {
    return (
      <tr>
        <td>
          <code>{field.name}</code>
        </td>
        <td colSpan={3} className="muted">
          Part of a sign-in to an API: never shown, never given to programs. Sign out in the API's settings.
        </td>
      </tr>
    );
  }

  const reveal = async () => {
    try {
      const reply = await api["vault.reveal"]({ item, field: field.name });
      if (reply.ok) setRevealed(reply.value);
      else notify({ kind: "error", text: reply.message });
    } catch (err) {
      notify({ kind: "error", text: `Could not reveal: ${errorMessage(err)}` });
    }
  };

  return (
    <tr>
      <td>
        <code>{field.name}</code>
        {field.problem && (
          <div className="field-error" role="note">
            {field.problem}
          </div>
        )}
      </td>
      <td className="vault-secret">
        {replacing ? (
          <form
            className="toolbar"
            onSubmit={async (e) => {
              e.preventDefault();
              if (await act("Value not replaced", () => api["vault.set"]({ item, field: field.name, value }))) {
                setReplacing(false);
                setValue("");
              }
            }}
          >
            <input className="input" type="password" aria-label={`New value for ${item}/${field.name}`} value={value} onChange={(e) => setValue(e.target.value)} autoFocus autoComplete="off" />
            <button className="btn btn-small btn-primary" disabled={!value}>
              Save
            </button>
            <button type="button" className="btn btn-small" onClick={() => setReplacing(false)}>
              Cancel
            </button>
          </form>
        ) : revealed !== undefined ? (
          <span className="toolbar">
            <code className="vault-revealed" data-testid="vault-revealed">
              {revealed}
            </code>
            <button className="btn btn-small btn-ghost" onClick={() => setRevealed(undefined)}>
              Hide
            </button>
          </span>
        ) : (
          <span className="toolbar">
            <span className="vault-mask" aria-label="hidden value">
              ••••••••••
            </span>
            <button className="btn btn-small btn-ghost" onClick={reveal} title={`Show the value for ${REVEAL_MS / 1000} seconds`}>
              Reveal
            </button>
          </span>
        )}
      </td>
      <td>
        <span className="toolbar">
          <code>{reference}</code>
          <CopyButton text={reference} label="Copy" className="btn btn-small btn-ghost" />
        </span>
      </td>
      <td className="vault-actions">
        {!replacing && (
          <button className="btn btn-small btn-ghost" onClick={() => setReplacing(true)}>
            Replace
          </button>
        )}
        <button className="btn btn-small btn-ghost" onClick={() => act("Field not deleted", () => api["vault.remove"]({ item, field: field.name }))}>
          Delete
        </button>
      </td>
    </tr>
  );
}

/** `.name`, or `["name"]` when the name is not a JavaScript identifier. */
function access(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
}

function toggle(set: Set<string>, value: string): Set<string> {
  const next = new Set(set);
  if (next.has(value)) next.delete(value);
  else next.add(value);
  return next;
}
