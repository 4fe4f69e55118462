// A minimal SMCP relay on the reference Node socket.io server: the yardstick
// of the Server benchmark (server/relay_bench_test.go). It keeps offices
// (one room each, members by name), routes every client:* request to the
// computer named in the caller's office and relays the answer, and turns
// server:update_* into notify:*. No version check, token or limits.
// Usage: node relay.mjs  (prints "listening on http://127.0.0.1:PORT")
import { createServer } from "node:http";
import { Server } from "socket.io";

const http = createServer();
const io = new Server(http, { serveClient: false, maxHttpBufferSize: 16 << 20 });
const offices = new Map(); // office id -> Map(name -> socket)

io.of("/smcp").on("connection", (socket) => {
  socket.on("server:join_office", ({ role, name, office_id }, ack) => {
    if (!offices.has(office_id)) offices.set(office_id, new Map());
    offices.get(office_id).set(name, socket);
    Object.assign(socket.data, { role, name, office: office_id });
    socket.join(office_id);
    socket.to(office_id).emit("notify:enter_office", { office_id, [role]: name });
    ack?.(true, null);
  });
  socket.onAny((event, payload, ack) => {
    const { role, office } = socket.data;
    if (event.startsWith("server:update_")) {
      socket.to(office).emit("notify:" + event.slice(7), { computer: socket.data.name });
      return ack?.();
    }
    if (!event.startsWith("client:") || typeof ack !== "function") return;
    if (!office) return ack({ code: 4103, message: "not in an office" });
    if (role !== "agent") return ack({ code: 403, message: "only agents" });
    const target = offices.get(office)?.get(payload?.computer);
    if (!target) return ack({ code: 404, message: "computer not found" });
    target.timeout(30000).emit(event, payload, (err, res) => ack(err ? { code: 408, message: "timeout" } : res));
  });
  socket.on("disconnect", () => {
    const { name, office } = socket.data;
    if (offices.get(office)?.get(name) === socket) offices.get(office).delete(name);
  });
});

http.listen(0, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${http.address().port}`));
