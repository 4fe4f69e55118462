// Load driver of the Server benchmarks (server/relay_bench_test.go): PAIRS
// computers and PAIRS agents on the npm socket.io-client, pair i alone in
// office i (computers on COMPUTER_URL, agents on AGENT_URL: the same
// Server, or two nodes of one), every agent sending client:get_finder to
// its computer in closed loops (INFLIGHT of them per agent, default 1).
// Usage: node bench.mjs AGENT_URL COMPUTER_URL A2C_VERSION FIRST_PAIR PAIRS WARMUP MEASURE [INFLIGHT]
// Prints "ready" once every pair has joined. On a line on stdin each agent
// sends WARMUP requests, then "warm" is printed; on the next line each agent
// sends MEASURE requests, and one JSON line is printed:
// {"count":N,"errors":N,"wall_us":N,"lat_us":[...]} for the measured ones.
import { io } from "socket.io-client";
import { createInterface } from "node:readline";

const [agentURL, computerURL, version, first, pairs, warmup, measure, inflight = "1"] = process.argv.slice(2);
const docs = Array.from({ length: 5 }, (_, i) => ({
  doc_ref: `doc-${i}`, uri: `dpe://docs/doc-${i}`, file_type: "pdf", title: `Quarterly report ${i}`,
  page_count: 12, server: "docs", keywords: ["q3", "revenue"], last_modified: "2026-11-01T10:00:00Z",
}));

function connect(url, role, name, office) {
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
  const pc = await connect(computerURL, "computer", "pc", office);
  pc.on("client:get_finder", (req, ack) => ack({ documents: docs, total_count: 5, req_id: req.req_id }));
  agents.push({ socket: await connect(agentURL, "agent", `bot-${i}`, office), name: `bot-${i}` });
}
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
console.log("ready");

let errors = 0, seq = 0;
// run has every agent send n requests, INFLIGHT at a time, and returns
// the latencies in µs.
async function run(n) {
  const lat = [];
  const loops = Number(inflight);
  await Promise.all(agents.flatMap(({ socket, name }) => Array.from({ length: loops }, async (_, l) => {
    for (let k = l; k < n; k += loops) {
      const start = performance.now();
      const req = { agent: name, req_id: `r${seq++}`, computer: "pc", keywords: ["q3"], limit: 5 };
      const ret = await socket.timeout(30000).emitWithAck("client:get_finder", req).catch(() => null);
      if (!ret || ret.req_id !== req.req_id || ret.documents?.length !== 5) errors++;
      else lat.push(Math.round((performance.now() - start) * 1000));
    }
  })));
  return lat;
}

await lines.next();
await run(Number(warmup));
console.log("warm");
await lines.next();
const t0 = performance.now();
const lat = await run(Number(measure));
const wall = Math.round((performance.now() - t0) * 1000);
process.stdout.write(JSON.stringify({ count: lat.length, errors, wall_us: wall, lat_us: lat }) + "\n", () => process.exit(0));
