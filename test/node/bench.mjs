// Load driver of the Server benchmark (server/relay_bench_test.go): PAIRS
// computers and PAIRS agents on the npm socket.io-client, pair i alone in
// office i, every agent sending client:get_finder to its computer in a
// closed loop. Usage: node bench.mjs URL A2C_VERSION FIRST_PAIR PAIRS WARMUP_S MEASURE_S
// Prints "ready" once every pair has joined, waits for a line on stdin,
// runs WARMUP_S then MEASURE_S seconds and prints one JSON line:
// {"count":N,"errors":N,"lat_us":[...]} for the requests that completed
// inside the measured window.
import { io } from "socket.io-client";
import { createInterface } from "node:readline";

const [url, version, first, pairs, warmupS, measureS] = process.argv.slice(2);
const docs = Array.from({ length: 5 }, (_, i) => ({
  doc_ref: `doc-${i}`, uri: `dpe://docs/doc-${i}`, file_type: "pdf", title: `Quarterly report ${i}`,
  page_count: 12, server: "docs", keywords: ["q3", "revenue"], last_modified: "2026-11-01T10:00:00Z",
}));

function connect(role, name, office) {
  const socket = io(`${url}/smcp`, { query: { a2c_version: version }, transports: ["websocket"], reconnection: false, forceNew: true });
  return new Promise((resolve, reject) => {
    socket.once("connect_error", reject);
    socket.once("connect", async () => {
      await socket.timeout(10000).emitWithAck("server:join_office", { role, name, office_id: office });
      resolve(socket);
    });
  });
}

const agents = [];
for (let i = Number(first); i < Number(first) + Number(pairs); i++) {
  const office = `bench-${i}`;
  const pc = await connect("computer", "pc", office);
  pc.on("client:get_finder", (req, ack) => ack({ documents: docs, total_count: 5, req_id: req.req_id }));
  agents.push({ socket: await connect("agent", `bot-${i}`, office), name: `bot-${i}` });
}
console.log("ready");
const rl = createInterface({ input: process.stdin });
await new Promise((resolve) => rl.once("line", resolve));

const t0 = performance.now();
const from = t0 + Number(warmupS) * 1000, to = from + Number(measureS) * 1000;
const lat = [];
let errors = 0, seq = 0;
await Promise.all(agents.map(async ({ socket, name }) => {
  while (performance.now() < to) {
    const start = performance.now();
    const req = { agent: name, req_id: `r${seq++}`, computer: "pc", keywords: ["q3"], limit: 5 };
    const ret = await socket.timeout(30000).emitWithAck("client:get_finder", req).catch(() => null);
    const end = performance.now();
    if (!ret || ret.req_id !== req.req_id || ret.documents?.length !== 5) errors++;
    else if (start >= from && end <= to) lat.push(Math.round((end - start) * 1000));
  }
}));
process.stdout.write(JSON.stringify({ count: lat.length, errors, lat_us: lat }) + "\n", () => process.exit(0));
