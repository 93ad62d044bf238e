import { Modal } from "../common/Modal.tsx";

const SHORTCUTS: [string, string][] = [
  ["Ctrl+Enter", "Run the program in the editor"],
  ["Alt+N", "New program"],
  ["/", "Filter operations"],
  ["Alt+I", "Approvals inbox"],
  ["Alt+H", "Runs history"],
  ["Alt+V", "Vault"],
  ["Alt+C", "Connect an agent"],
  ["Alt+S", "Settings"],
  ["Alt+A", "Add an API"],
  ["Alt+W", "Close the tab"],
  ["← →", "Move between tabs (on the tab strip)"],
  ["Delete", "Close the focused tab (on the tab strip)"],
  ["↑ ↓ Enter", "Move in the operation list, open an operation"],
  ["A", "Approve the focused request (inbox)"],
  ["Shift+A", "Approve and always allow (inbox)"],
  ["D", "Deny the focused request, with a message (inbox)"],
  ["J K", "Next / previous request (inbox)"],
  ["?", "This list"],
];

export function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  return (
    <Modal title="Keyboard shortcuts" onClose={onClose}>
      <table className="grid">
        <tbody>
          {SHORTCUTS.map(([keys, what]) => (
            <tr key={keys}>
              <td style={{ width: 130 }}>
                {keys.split(" ").map((k) => (
                  <kbd key={k} style={{ marginRight: 4 }}>
                    {k}
                  </kbd>
                ))}
              </td>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted" style={{ marginBottom: 0 }}>
        On macOS, Cmd works wherever Ctrl is listed.
      </p>
    </Modal>
  );
}
