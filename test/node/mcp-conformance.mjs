// Conformance of `smcp-browse serve-docs` against the official TypeScript MCP
// client (@modelcontextprotocol/sdk): list with cursor paging, the four
// levels with their query parameters, the 4201-4204 errors with their data,
// completion, a tool, and subscribe + create/modify/delete → notifications.
//
//   node mcp-conformance.mjs BINARY DIR HOST
//
// DIR must hold testdata/corpus plus 250 files bulk/note-NNN.md (the Go test
// TestConformanceTypeScriptSDK prepares it). Prints one line per check and
// "N passed, N failed"; exits non-zero when a check failed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  McpError,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import fs from "node:fs";
import path from "node:path";

const [bin, dir, host] = process.argv.slice(2);
if (!bin || !dir || !host) {
  console.error("usage: node mcp-conformance.mjs BINARY DIR HOST");
  process.exit(2);
}

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) {
    passed++;
    console.log(`ok   ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${name}${detail === undefined ? "" : ": " + JSON.stringify(detail)}`);
  }
}

const transport = new StdioClientTransport({
  command: bin,
  args: ["serve-docs", dir, "--host", host, "--list-page-size", "100", "--debounce", "60ms", "--log-level", "warn"],
  stderr: "inherit",
});
const client = new Client({ name: "ts-conformance", version: "1.0.0" });

// Notifications, with a way to wait for one.
const seen = [];
const waiters = [];
function record(n) {
  seen.push(n);
  for (const w of [...waiters]) w();
}
client.setNotificationHandler(ResourceListChangedNotificationSchema, record);
client.setNotificationHandler(ResourceUpdatedNotificationSchema, record);
function waitFor(method, uri, ms = 5000) {
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

async function read(uri) {
  const res = await client.readResource({ uri });
  return res.contents[0];
}
async function readJSON(uri) {
  const c = await read(uri);
  return JSON.parse(c.text);
}
async function readError(uri) {
  try {
    await client.readResource({ uri });
    return null;
  } catch (e) {
    return e instanceof McpError ? e : { code: "not an McpError", message: String(e) };
  }
}

const timeout = setTimeout(() => {
  console.log("FAIL timed out");
  process.exit(1);
}, 90_000);

try {
  await client.connect(transport);
  const caps = client.getServerCapabilities();
  check("capabilities resources.subscribe + listChanged", caps?.resources?.subscribe === true && caps?.resources?.listChanged === true, caps);
  check("capabilities tools + completions", !!caps?.tools && !!caps?.completions, caps);

  // resources/list with cursors.
  const all = [];
  let cursor;
  let pages = 0;
  do {
    const res = await client.listResources(cursor ? { cursor } : {});
    all.push(...res.resources);
    cursor = res.nextCursor;
    pages++;
  } while (cursor && pages < 100);
  check("list pages through 262 documents in 3 pages", all.length === 262 && pages === 3, { count: all.length, pages });
  check("list entries are Level 1 dpe:// JSON resources", all.every((r) => r.uri.startsWith(`dpe://${host}/`) && r.mimeType === "application/json" && r.name && r.annotations?.lastModified));
  check("list has no duplicates", new Set(all.map((r) => r.uri)).size === all.length);
  const byPath = Object.fromEntries(all.map((r) => [r._meta?.path, r]));
  const sales = byPath["data/sales.csv"]?.uri;
  const report = byPath["reports/q3-report.md"]?.uri;
  // A document whose peek has not finished within the listing's wait is
  // listed as pending (file name as title) and announced when it is done;
  // list again until the PDF (the slowest to open) has its title.
  let handbook = byPath["reports/handbook.pdf"];
  for (let i = 0; i < 100 && handbook?._meta?.pending; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const again = [];
    let c;
    do {
      const res = await client.listResources(c ? { cursor: c } : {});
      again.push(...res.resources);
      c = res.nextCursor;
    } while (c);
    handbook = again.find((r) => r._meta?.path === "reports/handbook.pdf");
  }
  check("list names come from the documents", handbook?.name === "Employee Handbook", handbook);

  const templates = await client.listResourceTemplates();
  const raws = templates.resourceTemplates.map((t) => t.uriTemplate);
  check("templates pages/{page_index} and elements/{element_id}", raws.includes(`dpe://${host}/{doc_ref}/pages/{page_index}`) && raws.includes(`dpe://${host}/{doc_ref}/elements/{element_id}`), raws);

  // Level 0.
  const cat = await readJSON(`dpe://${host}?limit=4`);
  check("Level 0 catalog with total_count", cat.total_count === 262 && cat.documents.length === 4 && cat.documents[0].server === host, { n: cat.documents.length, total: cat.total_count });
  // Level 1.
  const meta = await readJSON(sales);
  check("Level 1 metadata", meta.page_count === 3 && meta.file_type === "csv" && meta.pages === undefined && meta.last_modified === "2026-01-15T08:30:00Z", meta);
  const withPages = await readJSON(`${sales}?depth=pages&offset=2&limit=5`);
  check("Level 1 depth=pages offset/limit", withPages.pages.length === 1 && withPages.page_offset === 2 && withPages.page_limit === 5 && withPages.page_total === 3 && withPages.pages[0].title === "Rows 401–450", withPages);
  const l1md = await read(`${report}?format=markdown&depth=pages`);
  check("Level 1 markdown", l1md.mimeType === "text/markdown" && l1md.text.startsWith("# Q3 Operations Report"), l1md.text.slice(0, 80));
  // Level 2.
  const page = await readJSON(`${sales}/pages/0`);
  check("Level 2 table page of 200 rows", page.elements.length === 1 && page.elements[0].content.rows.length === 200 && page.element_count === 1, page.element_count);
  const filtered = await readJSON(`${report}/pages/1?categories=table,image`);
  check("Level 2 categories filter", filtered.element_count === 2 && filtered.elements.map((e) => e.category).join() === "table,image", filtered.elements.map((e) => e.category));
  const md = await read(`${report}/pages/1?format=markdown`);
  check("Level 2 markdown", md.mimeType === "text/markdown" && /\|\s*July\s*\|\s*1,250\s*\|\s*\+4%\s*\|/.test(md.text) && md.text.includes("[finance dashboard](https://example.com/finance)"), md.text);
  const txt = await read(`${report}/pages/1?format=text`);
  check("Level 2 text", txt.mimeType === "text/plain" && txt.text.includes("July\t1,250\t+4%"), txt.text);
  // Level 3.
  const el = await readJSON(`${sales}/elements/tbl-1-1`);
  check("Level 3 table slice", el.content.total_rows === 200 && el.content.total_columns === 5 && el.metadata.source_range === "A202:E401" && el.page_index === 1 && el.doc_ref === meta.doc_ref, { content: Object.keys(el.content), metadata: el.metadata });
  const elmd = await read(`${byPath["reports/budget.xlsx"].uri}/elements/fx-0-5?format=markdown`);
  check("Level 3 formula markdown", elmd.text === "`B7` $ =SUM(B2:B5) $ → 5610", elmd.text);

  // Errors: McpError with the protocol code and data.
  const e1 = await readError(`dpe://${host}/ghost-doc`);
  check("4201 with doc_ref", e1?.code === 4201 && e1.data?.doc_ref === "ghost-doc", e1 && { code: e1.code, data: e1.data });
  const e2 = await readError(`${sales}/pages/7`);
  check("4202 with page_index and page_count", e2?.code === 4202 && e2.data?.page_index === 7 && e2.data?.page_count === 3, e2 && { code: e2.code, data: e2.data });
  const e3 = await readError(`${sales}/elements/zzz-0-1`);
  check("4203 with element_id", e3?.code === 4203 && e3.data?.element_id === "zzz-0-1", e3 && { code: e3.code, data: e3.data });
  const e4 = await readError(`${sales}/pages/0?format=yaml`);
  check("4204 with uri and rule", e4?.code === 4204 && e4.data?.rule === 4 && e4.data?.uri === `${sales}/pages/0?format=yaml`, e4 && { code: e4.code, data: e4.data });

  // Completion chain doc_ref → page_index → element_id.
  const ref = meta.doc_ref;
  const c1 = await client.complete({ ref: { type: "ref/resource", uri: `dpe://${host}/{doc_ref}/pages/{page_index}` }, argument: { name: "doc_ref", value: "sales" } });
  check("complete doc_ref", c1.completion.values.length === 1 && c1.completion.values[0] === ref, c1.completion);
  const c2 = await client.complete({ ref: { type: "ref/resource", uri: `dpe://${host}/{doc_ref}/pages/{page_index}` }, argument: { name: "page_index", value: "" }, context: { arguments: { doc_ref: ref } } });
  check("complete page_index", c2.completion.values.join() === "0,1,2" && c2.completion.total === 3, c2.completion);
  const c3 = await client.complete({ ref: { type: "ref/resource", uri: `dpe://${host}/{doc_ref}/elements/{element_id}` }, argument: { name: "element_id", value: "" }, context: { arguments: { doc_ref: ref, page_index: "1" } } });
  check("complete element_id", c3.completion.values.join() === "tbl-1-1", c3.completion);

  // A tool.
  const tool = await client.callTool({ name: "fs_find", arguments: { pattern: "**/*.xlsx" } });
  check("fs_find", !tool.isError && tool.structuredContent?.matches?.[0]?.path === "reports/budget.xlsx", tool.structuredContent);
  const bad = await client.callTool({ name: "fs_tree", arguments: { path: "../.." } });
  check("fs_tree refuses a path outside the folder", bad.isError === true, bad);

  // Subscribe, then change files.
  await client.subscribeResource({ uri: report });
  fs.writeFileSync(path.join(dir, "ts-new.md"), "# New from TypeScript\n");
  check("list_changed after create", await waitFor("notifications/resources/list_changed"));
  fs.appendFileSync(path.join(dir, "reports", "q3-report.md"), "\nEdited by the TypeScript test.\n");
  check("updated after modify of a subscribed document", await waitFor("notifications/resources/updated", report));
  fs.unlinkSync(path.join(dir, "ts-new.md"));
  check("list_changed after delete", await waitFor("notifications/resources/list_changed"));
  const after = await client.listResources();
  check("list reflects the delete", !after.resources.some((r) => r._meta?.path === "ts-new.md"));
} catch (e) {
  check("no exception", false, String(e?.stack || e));
} finally {
  clearTimeout(timeout);
  await client.close().catch(() => {});
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
