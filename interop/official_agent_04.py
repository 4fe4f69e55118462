"""The events of the 0.4 line: the official A2C-SMCP Python Agent
(a2c-smcp's AsyncSMCPAgentClient) asks our Computer, through whichever
Server --server is (ours, or the SDK's own, which validates every answer
with its TypeAdapters and drops what does not pass).

Checks, with the SDK's own calls: get_config_from_computer (and the
answer validated locally with TypeAdapter(GetComputerConfigRet)),
get_resources of every configured server with cursor paging and the
4014 of an unknown one, get_skills / get_skill / get_blob (the SKILL of the
computer's --skills folder listed and read, SKILL.md without its front
matter and with its sha256, 4017 traversal/forbidden, 4014, 4016, 4018),
with --skills-dir the notify:update_skills after a SKILL.md is edited (the
SDK re-fetches and calls on_skills_received), emit_tool_call of an unknown
tool (a CallToolResult with isError and meta.error_code 4001), the desktop
order and identifiers of desktop.md, a 300 KB image tool result by blob
handle (the raw answer has data emptied and _meta.a2c_blob_handle; get_blob
chunk by chunk gives the bytes and sha256; emit_tool_call resolves it as the
SDK does), and, with --landing-root, put_blob of a file that lands there
whole (4019 integrity for a wrong declaration). Prints one line per check;
exits 1 when any check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import os
import pathlib
import sys
import uuid

from a2c_smcp import PROTOCOL_VERSION
from a2c_smcp.agent import AsyncSMCPAgentClient, DefaultAgentAuthProvider
from a2c_smcp.agent.errors import SMCPProtocolError
from a2c_smcp.smcp import TOOL_CALL_EVENT, GetComputerConfigRet
from pydantic import TypeAdapter

from checks import Checks, need
from window_server import image_bytes

NS = "/smcp"


async def protocol_error(coro) -> SMCPProtocolError:
    try:
        ret = await coro
    except SMCPProtocolError as e:
        return e
    raise AssertionError(f"answered {ret!r:.300} instead of a protocol error")


class Handler:
    """The SDK's AsyncAgentEventHandler: keeps the skill lists it hands over."""

    def __init__(self) -> None:
        self.skills: asyncio.Queue = asyncio.Queue()

    async def on_computer_enter_office(self, data, client) -> None: ...

    async def on_computer_leave_office(self, data, client) -> None: ...

    async def on_computer_update_config(self, data, client) -> None: ...

    async def on_computer_update_tool_list(self, data, client) -> None: ...

    async def on_tools_received(self, computer, tools, client) -> None: ...

    async def on_skills_received(self, computer, skills, client) -> None:
        await self.skills.put((computer, skills))


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", required=True)
    ap.add_argument("--office", default="interop")
    ap.add_argument("--computer", required=True)
    ap.add_argument("--path", default="/socket.io", help="Socket.IO HTTP path (socketio_path)")
    ap.add_argument("--name", default="py-agent-04")
    ap.add_argument("--servers", default="docs,win", help="bundle_ids the computer is configured with")
    ap.add_argument("--landing-root", default="", help="the computer's --landing-root: check put_blob lands there")
    ap.add_argument("--skills-dir", default="", help="the computer's --skills folder (edited to check notify:update_skills)")
    args = ap.parse_args()
    want_servers = set(args.servers.split(","))
    c = Checks(width=34)
    auth = DefaultAgentAuthProvider(agent_id=args.name, office_id=args.office)
    handler = Handler()
    client = AsyncSMCPAgentClient(auth_provider=auth, event_handler=handler)

    async def connect():
        await client.connect_to_server(args.server, socketio_path=args.path, wait_timeout=10)
        await client.join_office(args.office, args.name, namespace=NS)
        for _ in range(100):  # the SDK's join_office does not wait for the ack
            try:
                if any(s.get("name") == args.computer for s in await client.get_computers_in_office(args.office)):
                    return
            except Exception:
                pass
            await asyncio.sleep(0.1)
        raise AssertionError(f"{args.computer} never seen in office {args.office}")

    if await c.run(f"connect+join (a2c_version={PROTOCOL_VERSION})", connect()) is None and not client.connected:
        return 1

    async def get_config():
        ret = await client.get_config_from_computer(args.computer, timeout=20)
        TypeAdapter(GetComputerConfigRet).validate_python(ret)
        need(set(ret["servers"]) == want_servers, f"servers {sorted(ret['servers'])}, want {sorted(want_servers)}")
        for key, entry in ret["servers"].items():
            need(entry.get("bundle_id") == key, f"servers[{key}].bundle_id = {entry.get('bundle_id')!r}")
            if entry["type"] == "stdio":
                p = entry["server_parameters"]
                need(p.get("encoding") == "utf-8" and p.get("encoding_error_handler") == "strict", f"stdio defaults: {p}")
        described = ", ".join(f"{k} ({v['type']})" for k, v in sorted(ret["servers"].items()))
        print(f"     config: {described}")

    await c.run("get_config (TypeAdapter-valid)", get_config())

    async def get_resources():
        counts = {}
        for bundle in sorted(want_servers):
            cursor, seen, pages = None, [], 0
            while True:
                ret = await client.get_resources(args.computer, bundle, cursor, timeout=20)
                pages += 1
                seen += ret["resources"]
                cursor = ret.get("next_cursor")
                if not cursor:
                    break
                need(pages < 100, f"{bundle}: more than 100 pages")
            counts[bundle] = len(seen)
            need(seen, f"{bundle}: no resources")
            for r in seen:
                need("uri" in r and "name" in r, f"{bundle}: resource {r}")
            if bundle == "win":
                status = [r for r in seen if r["uri"] == "window://interop.example/status"]
                need(status and status[0].get("mime_type") == "text/markdown"
                     and status[0].get("annotations", {}).get("priority") == 0.9, f"status window as listed: {status}")
                need(any(r["uri"] == "window://interop.example/legacy?priority=95" for r in seen),
                     "the listed URI with a query is passed through unchanged")
            if bundle == "docs":
                need(any(r["uri"].startswith("dpe://") for r in seen), "no dpe:// document among the docs resources")
        print(f"     resources: {counts}")

    await c.run("get_resources (paged, every server)", get_resources())

    async def get_resources_errors():
        e = await protocol_error(client.get_resources(args.computer, "no-such-server"))
        need(e.code == 4014 and e.mcp_server == "no-such-server", f"unknown server: {e.payload}")

    await c.run("get_resources unknown server 4014", get_resources_errors())

    async def skills():
        ret = await client.get_skills(args.computer)
        names = [r.get("name") for r in ret.get("skills", [])]
        need(names == ["interop-skill"], f"skills {ret}")
        ref = ret["skills"][0]
        need(ref["source"] == "user" and ref["path"].endswith("interop-skill") and ref.get("tags") == ["interop", "demo"]
             and ref.get("allowed_tools") == ["Read"] and ref.get("license") == "MIT" and "uri" not in ref
             and ref["description"].startswith("Say hello"), f"skill ref {ref}")
        got = await client.get_skill(args.computer, "interop-skill")
        body = got.get("body", "")
        need(got["rel_path"] == "SKILL.md" and got["mime_type"] == "text/markdown" and "blob_handle" not in got
             and body.startswith("# Interop skill") and "description:" not in body, f"SKILL.md {got}")
        need(got["sha256"] == hashlib.sha256(body.encode()).hexdigest() and got["total_size"] == len(body.encode()),
             f"sha256/total_size do not describe the body: {got}")
        got = await client.get_skill(args.computer, "interop-skill", "scripts/hello.sh")
        need(got.get("body") == "echo hello\n" and got["rel_path"] == "scripts/hello.sh", f"scripts/hello.sh {got}")
        e = await protocol_error(client.get_skill(args.computer, "interop-skill", "../../computer.json"))
        need(e.code == 4017 and e.details.get("reason") == "traversal", f"traversal: {e.payload}")
        e = await protocol_error(client.get_skill(args.computer, "interop-skill", ".skillenv"))
        need(e.code == 4017 and e.details.get("reason") == "forbidden", f"forbidden: {e.payload}")
        e = await protocol_error(client.get_skill(args.computer, "mcp:docs:summarize"))
        need(e.code == 4014 and e.details.get("name") == "mcp:docs:summarize", f"absent skill: {e.payload}")
        e = await protocol_error(client.get_skill(args.computer, "Not A Name"))
        need(e.code == 4016, f"malformed skill name: {e.payload}")
        e = await protocol_error(client.get_blob(args.computer, "forged-handle"))
        need(e.code == 4018 and e.reason == "invalid_handle", f"forged blob handle: {e.payload}")

    async def skills_update():
        # Edit the SKILL.md: our Computer's watcher announces it, the
        # Server relays notify:update_skills, and the SDK re-fetches
        # get_skills on its own and hands the list to on_skills_received.
        while not handler.skills.empty():
            handler.skills.get_nowait()
        token = uuid.uuid4().hex[:8]
        skill_md = pathlib.Path(args.skills_dir, "interop-skill", "SKILL.md")
        text = skill_md.read_text()
        head, _, rest = text.partition("description: ")
        _, _, rest = rest.partition("\n")
        skill_md.write_text(f"{head}description: Say hello, edited {token}\n{rest}")
        deadline = asyncio.get_running_loop().time() + 20
        while True:
            timeout = deadline - asyncio.get_running_loop().time()
            need(timeout > 0, "no notify:update_skills (on_skills_received) within 20 s of the SKILL.md edit")
            computer, skills = await asyncio.wait_for(handler.skills.get(), timeout)
            if computer == args.computer and any(token in r.get("description", "") for r in skills):
                break

    await c.run("get_skills/get_skill/get_blob", skills())
    if args.skills_dir:
        await c.run("notify:update_skills after a SKILL.md edit", skills_update())

    async def unknown_tool():
        res = await client.emit_tool_call(args.computer, "docs__no_such_tool", {}, timeout=15)
        text = "".join(getattr(b, "text", "") for b in res.content)
        meta = res.meta or {}
        need(res.isError and meta.get("error_code") == 4001, f"isError={res.isError} meta={meta} text={text!r}")
        need("docs__no_such_tool" in text, f"text {text!r} does not name the tool")
        print(f"     unknown tool: {text!r}")

    await c.run("emit_tool_call unknown tool 4001", unknown_tool())

    async def desktop():
        ret = await client.get_desktop_from_computer(args.computer)
        ids = [d.split("\n\n", 1)[0] for d in ret["desktops"]]
        want = ["window://interop.example/status", "window://interop.example/log", "window://interop.example/legacy"]
        need(ids == want, f"desktop identifiers {ids}, want {want} (priority from annotations, query dropped)")

    await c.run("get_desktop (desktop.md order)", desktop())

    await c.run("tool result image by blob handle", blob_by_handle(client, args.computer))
    if args.landing_root:
        await c.run("put_blob lands under the landing root", put_blob(client, args.name, args.computer, args.landing_root))

    await client.disconnect()
    print(f"official agent 0.4: {c.failed} check(s) failed" if c.failed else "official agent 0.4: all checks passed")
    return 1 if c.failed else 0


async def blob_by_handle(client, computer: str) -> None:
    n = 300_000
    want = image_bytes(n)
    req = client.create_tool_call_request(computer, "win__image", {"bytes": n}, 30)
    raw = await client.call(TOOL_CALL_EVENT, req, timeout=30, namespace=NS)
    item = raw["content"][1]
    meta = item.get("_meta") or {}
    handle = meta.get("a2c_blob_handle")
    need(item.get("data") == "" and handle, f"raw image item: {len(item.get('data', ''))} bytes inline, _meta {meta}")
    need(meta.get("a2c_total_size") == n and meta.get("a2c_sha256") == hashlib.sha256(want).hexdigest(), f"_meta {meta}")
    got, off, chunks = b"", 0, 0
    while True:
        ret = await client.get_blob(computer, handle, chunk_offset=off)
        chunk = base64.b64decode(ret["blob"])
        got, off, chunks = got + chunk, off + len(chunk), chunks + 1
        if ret["eof"]:
            break
        need(chunk and chunks < 100, "no progress before eof")
    need(got == want and ret["sha256"] == hashlib.sha256(got).hexdigest() and ret["mime_type"] == "image/png",
         f"{len(got)} bytes by handle, sha256 {ret['sha256']}")
    e = await protocol_error(client.get_blob(computer, handle, chunk_offset=n + 1))
    need(e.code == 4018 and e.reason == "range", f"past the end: {e.payload}")
    res = await client.emit_tool_call(computer, "win__image", {"bytes": n}, timeout=30)
    need(base64.b64decode(res.content[1].data) == want, "emit_tool_call did not resolve the handle to the bytes")
    print(f"     image: {n} bytes in {chunks} chunks, sha256 checked")


async def put_blob(client, agent: str, computer: str, landing_root: str) -> None:
    data = os.urandom(600_000)
    r = await client.put_blob(computer, data, name_hint="../../up load.bin")
    need(os.path.dirname(r.landing_path) == os.path.abspath(landing_root), f"landed at {r.landing_path}")
    with open(r.landing_path, "rb") as f:
        need(f.read() == data, "the landed file differs from what was sent")
    need(r.sha256 == hashlib.sha256(data).hexdigest() and r.total_size == len(data), f"put_blob result {r}")
    req = {"agent": agent, "req_id": "bad-decl",
           "computer": computer, "chunk_offset": 0, "eof": True, "total_size": 3, "sha256": "0" * 64,
           "blob": base64.b64encode(b"abc").decode()}
    ack = await client.call("client:put_blob", req, timeout=30, namespace=NS)
    details = ack.get("details") or {}
    need(ack.get("code") == 4019 and details.get("reason") == "integrity", f"wrong sha256: {ack}")
    print(f"     upload: {len(data)} bytes at {r.landing_path}")


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
