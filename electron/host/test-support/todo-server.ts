/**
 * A small real server shaped like one go-swagger generates for
 * specs/fixtures/go-swagger-todos.yaml: everything under the basePath
 * /api/v1, JSON in and out, todo writes guarded by the x-todolist-token header,
 * 422 with {code, field} for invalid todos, multipart attachments.
 */
import { json, startRecordingServer, type RecordingServer } from "./recording-server.ts";

export const TODO_TOKEN = "todo-secret-token-4821";

interface Todo {
  id: number;
  description: string;
  completed: boolean;
}

export async function startTodoServer(): Promise<RecordingServer> {
  const todos: Todo[] = [{ id: 1, description: "write the spec", completed: true }];
  let nextId = 2;
  return startRecordingServer((req, res) => {
    if (!req.path.startsWith("/api/v1/")) return json(res, 404, { code: 404, message: `no route ${req.path}` });
    const path = req.path.slice("/api/v1".length);
    // As the spec says: creating, updating and deleting todos need the key; attachments do not.
    const guarded = req.method !== "GET" && !path.endsWith("/attachments");
    if (guarded && req.headers["x-todolist-token"] !== TODO_TOKEN) return json(res, 401, { code: 401, message: "unauthenticated for invalid credentials" });
    if (path === "/todos" && req.method === "GET") {
      const since = Number(req.query.get("since") ?? 0);
      const limit = Number(req.query.get("limit") ?? 20);
      return json(res, 200, todos.filter((t) => t.id > since).slice(0, limit));
    }
    if (path === "/todos" && req.method === "POST") {
      const body = JSON.parse(req.text || "{}") as Partial<Todo>;
      if (typeof body.description !== "string" || !body.description) return json(res, 422, { code: 602, field: "description" });
      const todo = { id: nextId++, description: body.description, completed: body.completed ?? false };
      todos.push(todo);
      return json(res, 201, todo, { "x-request-id": `req-${todo.id}` });
    }
    const m = /^\/todos\/(\d+)(\/attachments)?$/.exec(path);
    const todo = m ? todos.find((t) => t.id === Number(m[1])) : undefined;
    if (!m || !todo) return json(res, 404, { code: 404, message: "todo not found" });
    if (m[2] && req.method === "POST") {
      const type = String(req.headers["content-type"] ?? "");
      if (!type.startsWith("multipart/form-data; boundary=")) return json(res, 415, { code: 415, message: "expected multipart" });
      return json(res, 201, { received: req.body.length, hasFile: req.text.includes('name="file"; filename=') });
    }
    if (req.method === "PUT") {
      const body = JSON.parse(req.text || "{}") as Partial<Todo>;
      Object.assign(todo, { description: body.description ?? todo.description, completed: body.completed ?? todo.completed });
      return json(res, 200, todo);
    }
    if (req.method === "DELETE") {
      todos.splice(todos.indexOf(todo), 1);
      return void res.writeHead(204).end();
    }
    json(res, 405, { code: 405, message: "method not allowed" });
  });
}
