// End to end of `smcp-browse mcp` (the MCP façade of an office's Finder)
// with the official TypeScript MCP client (@modelcontextprotocol/sdk),
// against a real Server with two Computers: laptop (testdata/corpus, host
// team.laptop) and desktop (DESKDIR, host team.desktop).
//
//   node mcp-facade.mjs BINARY SERVER_URL OFFICE TOKEN DESKDIR
//
// Prints one line per check, the page-read latency through the façade and
// through `smcp-browse cat` (same run), and "N passed, N failed"; exits
// non-zero when a check failed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  McpError,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const [bin, server, office, token, deskDir] = process.argv.slice(2);
if (!deskDir) {
  console.error("usage: node mcp-facade.mjs BINARY SERVER_URL OFFICE TOKEN DESKDIR");
  process.exit(2);
}
const conn = ["--server", server, "--office", office, "--token", token];

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) {
    passed++;
    console.log(`ok   ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${name}${detail === undefined ? "" : ": " + JSON.stringify(detail).slice(0, 2000)}`);
  }
}

const transport = new StdioClientTransport({
  command: bin,
  args: ["mcp", ...conn, "--log-file", "facade.log", "--log-level", "debug"],
  stderr: "inherit",
});
const client = new Client({ name: "ts-facade-e2e", version: "1.0.0" });

const seen = [];
const waiters = [];
function record(n) {
  seen.push(n);
  for (const w of [...waiters]) w();
}
client.setNotificationHandler(ResourceListChangedNotificationSchema, record);
client.setNotificationHandler(ResourceUpdatedNotificationSchema, record);
// waitFor resolves true when a notification of method (for uri) arrives
// within ms, false after.
function waitFor(method, uri, ms) {
  return new Promise((resolve) => {
    const find = () => {
      const i = seen.findIndex((n) => n.method === method && (!uri || n.params?.uri === uri));
      if (i >= 0) {
        seen.splice(i, 1);
        return true;
      }
      return false;
    };
    if (find()) return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    const w = () => {
      if (find()) {
        clearTimeout(timer);
        waiters.splice(waiters.indexOf(w), 1);
        resolve(true);
      }
    };
    waiters.push(w);
  });
}

// call calls a tool and returns its structured content (or, for a text
// answer, {text, content, isError}).
async function call(name, args = {}) {
  const res = await client.callTool({ name, arguments: args });
  if (res.structuredContent && !res.isError) return res.structuredContent;
  return { text: res.content.map((c) => c.text).join("\n"), content: res.content, isError: !!res.isError };
}
async function readError(uri) {
  try {
    await client.readResource({ uri });
    return null;
  } catch (e) {
    return e instanceof McpError ? e : { code: "not an McpError", message: String(e) };
  }
}
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const timeout = setTimeout(() => {
  console.log("FAIL timed out");
  process.exit(1);
}, 150_000);

const pageURI = "dpe://team.laptop/q3-report-4f2bf6/pages/1";
let facadeMs = [];
try {
  await client.connect(transport);
  const caps = client.getServerCapabilities();
  check("capabilities: tools, resources subscribe + listChanged, completions",
    !!caps?.tools && caps?.resources?.subscribe === true && caps?.resources?.listChanged === true && !!caps?.completions, caps);

  const tools = (await client.listTools()).tools;
  const names = tools.map((t) => t.name).sort();
  check("tools/list: the six finder tools", JSON.stringify(names) ===
    JSON.stringify(["finder_computers", "finder_document", "finder_element", "finder_list", "finder_page", "finder_search"]), names);
  check("every tool has a description and an object input schema, read-only",
    tools.every((t) => t.description?.length > 40 && t.inputSchema?.type === "object" && t.annotations?.readOnlyHint === true), tools);
  const search = tools.find((t) => t.name === "finder_search");
  check("finder_search's schema requires query and bounds max_results",
    search.inputSchema.required?.includes("query") && search.inputSchema.properties.max_results?.maximum > 0, search.inputSchema);

  const comps = await call("finder_computers");
  const byName = Object.fromEntries((comps.computers ?? []).map((c) => [c.name, c]));
  check("finder_computers: laptop (12 documents) and desktop (3)",
    byName.laptop?.documents === 12 && byName.desktop?.documents === 3 && byName.laptop.file_types?.pdf === 1, comps);

  // finder_list pages across both computers with next_cursor.
  const listed = [];
  let cursor;
  let rounds = 0;
  let first;
  do {
    const page = await call("finder_list", cursor ? { max_entries: 5, cursor } : { max_entries: 5 });
    first ??= page;
    listed.push(...(page.documents ?? []));
    cursor = page.next_cursor;
    rounds++;
  } while (cursor && rounds < 20);
  check("finder_list: a 5-entry answer says truncated, with the total and a next_cursor",
    first.truncated === true && first.total === 15 && first.documents.length === 5 && !!first.next_cursor && /next_cursor/.test(first.note), first);
  check("finder_list: next_cursor walks both computers' 15 documents, none twice",
    listed.length === 15 && new Set(listed.map((d) => d.uri)).size === 15 &&
    listed.some((d) => d.computer === "desktop") && listed.some((d) => d.computer === "laptop"), listed.map((d) => d.uri));
  const roadmap = await call("finder_list", { keywords: ["roadmap"] });
  check("finder_list: keywords find the roadmap on the laptop",
    roadmap.documents?.length === 1 && roadmap.documents[0].computer === "laptop" && roadmap.documents[0].file_type === "pptx" && roadmap.truncated === false, roadmap);
  const pdfs = await call("finder_list", { file_type: "pdf", computer: "laptop" });
  check("finder_list: file_type and computer filter", pdfs.documents?.length === 1 && pdfs.documents[0].title === "Employee Handbook", pdfs);
  const nobody = await call("finder_list", { computer: "nobody" });
  check("finder_list: an unknown computer is an error that names those present",
    nobody.isError && /error 404/.test(nobody.text) && /laptop/.test(nobody.text) && /finder_computers/.test(nobody.text), nobody);

  const handbook = "dpe://team.laptop/handbook-3a5f53";
  const doc = await call("finder_document", { uri: handbook });
  check("finder_document: metadata and the whole page index",
    doc.computer === "laptop" && doc.document?.page_count === 3 && doc.document.pages?.length === 3 && doc.pages_truncated === false, doc);
  const cut = await call("finder_document", { uri: handbook, max_pages: 1 });
  check("finder_document: a cut index says so and where to go on",
    cut.document?.pages?.length === 1 && cut.pages_truncated === true && cut.next_page_offset === 1, cut);

  const page = await call("finder_page", { uri: pageURI });
  check("finder_page: Markdown with the revenue table", !page.isError && /\| July +\| +1,250 \|/.test(page.text), page);
  const short = await call("finder_page", { uri: "dpe://team.laptop/q3-report-4f2bf6", page: 1, max_chars: 120 });
  check("finder_page: a page cut at max_chars says how much is shown",
    short.content?.length === 2 && short.content[0].text.length <= 120 && /^\[truncated: \d+ of \d+ characters shown/.test(short.content[1].text), short);
  const tables = await call("finder_page", { uri: pageURI, categories: ["table"], format: "json" });
  const els = JSON.parse(tables.text).elements ?? [];
  check("finder_page: categories keep the tables, as JSON with element ids",
    els.length === 1 && els[0].category === "table" && !!els[0].element_id, els);
  const el = await call("finder_element", { uri: "dpe://team.laptop/q3-report-4f2bf6", element_id: els[0]?.element_id });
  check("finder_element: the table by its id, in Markdown", !el.isError && /\| September +\| +1,420 \|/.test(el.text), el);
  const out = await call("finder_page", { uri: handbook, page: 99 });
  check("finder_page: page 99 of 3 is a 4202 error that says what to do",
    out.isError && /^error 4202: /.test(out.text) && /finder_document/.test(out.text), out);
  const bad = await call("finder_page", { uri: "not a uri" });
  check("finder_page: a bad URI is a 4204 error", bad.isError && /error 4204/.test(bad.text), bad);

  const hits = await call("finder_search", { query: "revenue" });
  const hitComputers = new Set((hits.matches ?? []).map((m) => m.computer));
  check("finder_search: revenue matches on both computers, with page URIs and lines",
    hitComputers.has("laptop") && hitComputers.has("desktop") &&
    hits.matches.every((m) => m.uri.includes("/pages/") && /revenue/i.test(m.line) && typeof m.page === "number"), hits);
  const one = await call("finder_search", { query: "revenue", max_results: 1 });
  const two = await call("finder_search", { query: "revenue", max_results: 1, cursor: one.next_cursor });
  check("finder_search: max_results 1 says truncated and next_cursor gives the next match",
    one.matches?.length === 1 && one.truncated && two.matches?.length === 1 &&
    (two.matches[0].uri !== one.matches[0].uri || two.matches[0].line !== one.matches[0].line), { one, two });
  const walked = [];
  let sc;
  let steps = 0;
  do {
    const r = await call("finder_search", sc ? { query: "revenue", max_results: 2, cursor: sc } : { query: "revenue", max_results: 2 });
    walked.push(...(r.matches ?? []).map((m) => `${m.uri} ${m.line}`));
    sc = r.next_cursor;
    steps++;
  } while (sc && steps < 30);
  check("finder_search: walking next_cursor gives every match of one search once",
    walked.length === hits.matches.length && new Set(walked).size === walked.length, { walked, all: hits.matches.length });
  const lit = await call("finder_search", { query: "1,250", literal: true });
  check("finder_search: literal finds the exact string", lit.matches?.some((m) => m.line.includes("1,250")), lit);

  // Resources.
  const all = [];
  let rc;
  let pages = 0;
  do {
    const res = await client.listResources(rc ? { cursor: rc } : {});
    all.push(...res.resources);
    rc = res.nextCursor;
    pages++;
  } while (rc && pages < 50);
  check("resources/list: both computers' 15 documents, dpe:// URIs unchanged",
    all.length === 15 && new Set(all.map((r) => r.uri)).size === 15 &&
    all.some((r) => r.uri.startsWith("dpe://team.desktop/")) && all.some((r) => r.uri.startsWith("dpe://team.laptop/")) &&
    all.every((r) => r.name && r._meta?.computer && r._meta?.path), all.map((r) => r.uri));
  const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
  check("resources/templates/list: pages and elements", templates.includes("dpe://{host}/{doc_ref}/pages/{page_index}") &&
    templates.includes("dpe://{host}/{doc_ref}/elements/{element_id}"), templates);
  const read = await client.readResource({ uri: pageURI + "?format=markdown" });
  check("resources/read: a page in Markdown", read.contents[0]?.mimeType === "text/markdown" && /\| August/.test(read.contents[0].text), read);
  const desk = all.find((r) => r._meta?.path === "plan.md");
  const deskDoc = await client.readResource({ uri: desk.uri });
  check("resources/read: the desktop's document through its computer", JSON.parse(deskDoc.contents[0].text).title === "Desktop plan", deskDoc);
  const gone = await readError("dpe://team.laptop/gone-000000");
  check("resources/read: a missing document is error 4201 with what to do", gone?.code === 4201 && /finder_list/.test(gone.message), gone);
  const nohost = await readError("dpe://team.nowhere/x");
  check("resources/read: a host no computer serves is 4201", nohost?.code === 4201, nohost);
  const comp = await client.complete({
    ref: { type: "ref/resource", uri: "dpe://{host}/{doc_ref}/pages/{page_index}" },
    argument: { name: "doc_ref", value: "q3" },
    context: { arguments: { host: "team.laptop" } },
  });
  check("completion/complete: doc_ref from a prefix", comp.completion.values.includes("q3-report-4f2bf6"), comp);

  // Live changes: subscribe to the desktop plan, edit it, add a file.
  await client.subscribeResource({ uri: desk.uri });
  fs.appendFileSync(path.join(deskDir, "plan.md"), "\nA line added while the host watches.\n");
  check("subscribe + edit: notifications/resources/updated for the document",
    await waitFor("notifications/resources/updated", desk.uri, 30_000), seen);
  const after = await client.readResource({ uri: desk.uri + "/pages/0?format=text" });
  check("the updated document reads with the edit", /added while the host watches/.test(after.contents[0].text), after);
  fs.writeFileSync(path.join(deskDir, "new-notes.md"), "# New notes\n\nWritten during the run.\n");
  check("a new file: notifications/resources/list_changed",
    await waitFor("notifications/resources/list_changed", null, 30_000), seen);
  let grown;
  for (let i = 0; i < 50; i++) {
    grown = await call("finder_list", { computer: "desktop" });
    if (grown.total === 4) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  check("finder_list then counts the new document", grown.total === 4 && grown.documents.some((d) => d.path === "new-notes.md"), grown);

  // Latency of a page read through the façade (warm).
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    await client.readResource({ uri: pageURI + "?format=markdown" });
    facadeMs.push(performance.now() - t0);
  }
} catch (e) {
  check("no exception", false, String(e?.stack ?? e));
} finally {
  await client.close();
}

// The same read through `smcp-browse cat` (a process that connects, joins,
// reads and leaves), once the façade has left the office's agent seat.
const catMs = [];
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  try {
    execFileSync(bin, ["cat", ...conn, "--computer", "laptop", pageURI, "--format", "markdown", "--log-file", "cat.log"], { stdio: "pipe" });
    catMs.push(performance.now() - t0);
  } catch (e) {
    // The Server frees the seat as the façade's connection closes; the
    // first cat may come just before.
    if (i === 0 && /4101/.test(String(e.stderr))) {
      await new Promise((r) => setTimeout(r, 500));
      i--;
      continue;
    }
    check("smcp-browse cat reads the page", false, String(e.stderr ?? e));
    break;
  }
}
if (facadeMs.length && catMs.length) {
  const f = median(facadeMs);
  const c = median(catMs);
  console.log(`latency: page read through the façade ${f.toFixed(1)} ms (median of ${facadeMs.length}), through smcp-browse cat ${c.toFixed(1)} ms (median of ${catMs.length}); façade/cat = ${(f / c).toFixed(3)}`);
}
clearTimeout(timeout);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
