package cluster

import (
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// The office state in Redis, under the key prefix P (ARGV[1] of every
// script):
//
//	P:n:<node>      a node's lease: a string with a TTL, renewed by its heartbeat
//	P:nodes         set of the nodes that registered (live or not yet reaped)
//	P:s:<sid>       hash of a session in an office: node, name, role, office, ver
//	P:ns:<node>     set of the sids of a node's sessions in offices
//	P:o:<office>    hash of an office's members: name -> sid
//	P:oa:<office>   the sid of the office's agent
//	P:c:<name>      set of the offices with a computer of that name (for 4104)
//	P:ov:<office>   the office's version: counts its membership changes
//	P:linkkey       the key that authenticates links between nodes (hex), set by the first node
//
// Every change runs in one Lua script, so two nodes can never both seat an
// agent in one office or two members under one name. A session whose node
// has no lease counts as gone everywhere (listing, routing, the seat
// checks); the reap script removes such sessions for good.
//
// Every membership change bumps the office's version, which the change's
// notification carries: a node delivers it only to the members that
// joined before it, since pub/sub may bring a notification published just
// before a member joined to that member's node just after.

// luaLib holds the helpers every script shares.
const luaLib = `
local P = ARGV[1]
local function alive(node)
  return node and redis.call('EXISTS', P..':n:'..node) == 1
end
-- bump counts a membership change of office and returns its version.
local function bump(office)
  local v = redis.call('INCR', P..':ov:'..office)
  redis.call('PERSIST', P..':ov:'..office)
  return tostring(v)
end
-- drop removes session sid from its office and from the node's set and
-- returns {office, role, name, sid, version}, or nil when it is in none.
local function drop(sid)
  local s = redis.call('HMGET', P..':s:'..sid, 'office', 'name', 'role', 'node')
  local office, name, role, node = s[1], s[2], s[3], s[4]
  if not office then return nil end
  if redis.call('HGET', P..':o:'..office, name) == sid then
    redis.call('HDEL', P..':o:'..office, name)
  end
  if role == 'agent' then
    if redis.call('GET', P..':oa:'..office) == sid then redis.call('DEL', P..':oa:'..office) end
  elseif redis.call('HGET', P..':o:'..office, name) == false then
    redis.call('SREM', P..':c:'..name, office)
  end
  redis.call('DEL', P..':s:'..sid)
  if node then redis.call('SREM', P..':ns:'..node, sid) end
  local v = bump(office)
  if redis.call('EXISTS', P..':o:'..office) == 0 then
    -- An empty office's version is kept a day (a member joining it later
    -- must get a higher one than notifications still in flight).
    redis.call('PEXPIRE', P..':ov:'..office, 86400000)
  end
  return {office, role, name, sid, v}
end
local function append(list, l)
  if l then for _, v in ipairs(l) do table.insert(list, v) end end
end
`

// withCodes writes the protocol's codes into a script's refusals
// ($RoomFull, $NameTaken, $AgentInOtherRoom), which Join reads back.
func withCodes(script string) string {
	return strings.NewReplacer(
		"$RoomFull", strconv.Itoa(protocol.CodeRoomFull),
		"$NameTaken", strconv.Itoa(protocol.CodeNameTaken),
		"$AgentInOtherRoom", strconv.Itoa(protocol.CodeAgentInOtherRoom),
	).Replace(script)
}

// joinScript seats a session. ARGV: P, node, sid, name, role, office, ver.
// Returns {status, code, holder, version, left...} where status is "ok",
// "noop", "err" or "fenced", version is the office's version after the
// join (its current one for "noop") and left lists {office, role, name, sid} quadruples
// of the sessions removed on the way (the session's previous seat, and
// seats held by sessions of dead nodes).
var joinScript = redis.NewScript(luaLib + withCodes(`
local node, sid, name, role, office, ver = ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]
if not alive(node) then return {'fenced', '', '', ''} end
local cur = redis.call('HMGET', P..':s:'..sid, 'office', 'name', 'role')
if cur[1] then
  if cur[1] == office and cur[2] == name and cur[3] == role then
    return {'noop', '', '', redis.call('GET', P..':ov:'..office) or '0'}
  end
  if cur[3] == 'agent' and cur[1] ~= office then return {'err', '$AgentInOtherRoom', cur[1], ''} end
end
local out = {'ok', '', '', ''}
-- stale tells whether holder's seat is held by a dead node's session,
-- and frees it if so.
local function stale(holder)
  if alive(redis.call('HGET', P..':s:'..holder, 'node')) then return false end
  append(out, drop(holder))
  return true
end
if role == 'agent' then
  local a = redis.call('GET', P..':oa:'..office)
  if a and a ~= sid and not stale(a) then
    out[1], out[2], out[3] = 'err', '$RoomFull', redis.call('HGET', P..':s:'..a, 'name') or ''
    return out
  end
end
local m = redis.call('HGET', P..':o:'..office, name)
if m and m ~= sid and not stale(m) then
  out[1], out[2] = 'err', '$NameTaken'
  return out
end
if cur[1] then append(out, drop(sid)) end
redis.call('HSET', P..':o:'..office, name, sid)
if role == 'agent' then
  redis.call('SET', P..':oa:'..office, sid)
else
  redis.call('SADD', P..':c:'..name, office)
end
redis.call('HSET', P..':s:'..sid, 'node', node, 'name', name, 'role', role, 'office', office, 'ver', ver)
redis.call('SADD', P..':ns:'..node, sid)
out[4] = bump(office)
return out
`))

// leaveScript removes a session from office (nothing when it is not
// there). ARGV: P, sid, office ("" for whatever office it is in).
// Returns {office, role, name, sid, version} or an empty list.
var leaveScript = redis.NewScript(luaLib + `
local sid, office = ARGV[2], ARGV[3]
local cur = redis.call('HGET', P..':s:'..sid, 'office')
if not cur or (office ~= '' and cur ~= office) then return {} end
return drop(sid) or {}
`)

// targetScript finds the computer name in office for the caller csid of
// node cnode. ARGV: P, cnode, csid, office, name. Returns {"ok", sid,
// node}, {"lost"} when the caller no longer holds its seat, {"cross"}
// when a live computer of that name is in another office, or {"none"}.
var targetScript = redis.NewScript(luaLib + `
local cnode, csid, office, name = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local me = redis.call('HMGET', P..':s:'..csid, 'office', 'node')
if me[1] ~= office or me[2] ~= cnode then return {'lost'} end
local sid = redis.call('HGET', P..':o:'..office, name)
if sid then
  local t = redis.call('HMGET', P..':s:'..sid, 'role', 'node')
  if t[1] == 'computer' and alive(t[2]) then return {'ok', sid, t[2]} end
end
for _, o in ipairs(redis.call('SMEMBERS', P..':c:'..name)) do
  if o ~= office then
    local s2 = redis.call('HGET', P..':o:'..o, name)
    if s2 and alive(redis.call('HGET', P..':s:'..s2, 'node')) then return {'cross'} end
  end
end
return {'none'}
`)

// listScript lists office's live members for the caller csid of node
// cnode. ARGV: P, cnode, csid, office. Returns {"lost"} or {"ok", then
// sid, name, role, ver per member}.
var listScript = redis.NewScript(luaLib + `
local cnode, csid, office = ARGV[2], ARGV[3], ARGV[4]
local me = redis.call('HMGET', P..':s:'..csid, 'office', 'node')
if me[1] ~= office or me[2] ~= cnode then return {'lost'} end
local out = {'ok'}
local members = redis.call('HGETALL', P..':o:'..office)
for i = 1, #members, 2 do
  local sid = members[i+1]
  local s = redis.call('HMGET', P..':s:'..sid, 'name', 'role', 'ver', 'node')
  if s[1] and alive(s[4]) then
    table.insert(out, sid); table.insert(out, s[1]); table.insert(out, s[2]); table.insert(out, s[3] or '')
  end
end
return out
`)

// reapScript removes every session of a node whose lease is gone, and the
// node. ARGV: P, node. Returns the {office, role, name, sid, version}
// of the sessions removed (empty when the node is alive: only one reaper gets each).
var reapScript = redis.NewScript(luaLib + `
local node = ARGV[2]
if alive(node) then return {} end
local out = {}
for _, sid in ipairs(redis.call('SMEMBERS', P..':ns:'..node)) do
  append(out, drop(sid))
end
redis.call('DEL', P..':ns:'..node)
redis.call('SREM', P..':nodes', node)
return out
`)

// deadScript lists the registered nodes without a lease. ARGV: P.
var deadScript = redis.NewScript(luaLib + `
local out = {}
for _, node in ipairs(redis.call('SMEMBERS', P..':nodes')) do
  if not alive(node) then table.insert(out, node) end
end
return out
`)

// registerScript takes a new lease. ARGV: P, node, info, ttl ms.
var registerScript = redis.NewScript(luaLib + `
local node, info, ttl = ARGV[2], ARGV[3], ARGV[4]
if not redis.call('SET', P..':n:'..node, info, 'NX', 'PX', ttl) then return 0 end
redis.call('SADD', P..':nodes', node)
return 1
`)

// linkKeyScript returns the cluster's link key, setting it to ARGV[2]
// when there is none yet.
var linkKeyScript = redis.NewScript(`
local k = redis.call('GET', ARGV[1]..':linkkey')
if k then return k end
redis.call('SET', ARGV[1]..':linkkey', ARGV[2])
return ARGV[2]
`)
