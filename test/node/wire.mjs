// Wire test: the npm socket.io-client (a client nobody here wrote) against
// the smcp-browse Server. Usage: node wire.mjs SERVER_URL OFFICE COMPUTER
//
// It records what it observes and prints one JSON report on stdout; the Go
// test (server/wire_test.go) makes the assertions. Every step has a timeout,
// and a failure is recorded rather than thrown, so the report always comes.
import { io } from "socket.io-client";

const [url, office, computer] = process.argv.slice(2);
const STEP_MS = 5000;
const report = {};

function withTimeout(promise, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${STEP_MS} ms`)), STEP_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

// refused connects with the given query and reports what connect_error
// said and what the same handshake answers over plain HTTP.
async function refused(query) {
  const out = {};
  const socket = io(`${url}/smcp`, { query, reconnection: false, transports: ["polling", "websocket"] });
  try {
    const err = await withTimeout(
      new Promise((resolve, reject) => {
        socket.on("connect", () => reject(new Error("connected although it should be refused")));
        socket.on("connect_error", resolve);
      }),
      "connect_error",
    );
    out.connect_error = String(err.message);
    const text = err.context && (err.context.responseText ?? err.context.response);
    if (typeof text === "string" && text.length > 0) out.client_saw_body = JSON.parse(text);
  } catch (e) {
    out.error = String(e.message);
  } finally {
    socket.close();
  }
  const qs = new URLSearchParams({ EIO: "4", transport: "polling", ...query });
  const res = await withTimeout(fetch(`${url}/socket.io/?${qs}`), "plain HTTP handshake");
  out.http_status = res.status;
  out.http_error_header = res.headers.get("x-a2c-error-code");
  out.http_body = await res.json();
  return out;
}

async function session() {
  const out = { transports: [] };
  const socket = io(`${url}/smcp`, {
    query: { a2c_version: "0.4.0" },
    reconnection: false,
    transports: ["polling", "websocket"],
  });
  // The manager opens its engine at once: watch the first transport and the
  // upgrade from the start (the upgrade may finish before "connect").
  const engine = socket.io.engine;
  out.transports.push(engine.transport.name);
  const upgraded = new Promise((resolve) => engine.once("upgrade", (t) => resolve(t.name)));
  try {
    await withTimeout(
      new Promise((resolve, reject) => {
        socket.on("connect", resolve);
        socket.on("connect_error", reject);
      }),
      "connect",
    );

    const ask = (event, payload) => withTimeout(socket.emitWithAck(event, payload), event);
    out.join_ack = (await ask("server:join_office", { role: "agent", name: "node-agent", office_id: office })) ?? null;
    out.list_room = await ask("server:list_room", { agent: "node-agent", req_id: "wire-list", office_id: office });

    out.transports.push(await withTimeout(upgraded, "upgrade to websocket"));
    out.get_finder = await ask("client:get_finder", {
      agent: "node-agent", req_id: "wire-1", computer, keywords: ["q3", "报告"], limit: 5,
    });
    out.binary_payload = await ask("client:get_finder", Buffer.from([1, 2, 3]));
    out.unknown_computer = await ask("client:get_finder", { agent: "node-agent", req_id: "wire-2", computer: "ghost" });
    out.still_connected = socket.connected;
    out.final_transport = engine.transport.name;
  } catch (e) {
    out.error = String(e.message);
  } finally {
    socket.close();
  }
  return out;
}

report.missing_version = await refused({});
report.incompatible_version = await refused({ a2c_version: "0.1.0" });
report.session = await session();
// Exit explicitly: the HTTP client keeps idle connections open for a while.
process.stdout.write(JSON.stringify(report) + "\n", () => process.exit(0));
