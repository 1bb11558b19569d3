-- The one wrk script of `npm run bench`. Arguments after `--`:
--   mode   get | create | create-custom | merge-patch | apply
--          (create-custom: a bench.example.com/v1 Widget with the 30 spec fields bench/crd.ts's
--          schema declares: s1..s10 strings, i1..i10 integers, b1..b5 booleans, e1..e5 enums)
--   path   the request path (for create: the collection; for patches: the collection, names cm-0..)
--   accept the Accept header
--   prefix names of created objects are <prefix>-<n> (n counts up; wrk may skip one); for patches,
--          how many objects cm-0, cm-1, ... there are
--   pad    bytes of filler in each created object's data (to reach a given object size)
-- The bearer token comes with -H on the command line. done() prints one JSON line the bench reads.
local mode, path, accept, prefix, pad, headers, widgetSpec
local counter = 0

-- The Widget's spec: the same 30 fields every time, so the rate is the schema's cost alone.
local function buildWidgetSpec()
  local fields = {}
  for i = 1, 10 do fields[#fields + 1] = string.format('"s%d":"value-%d"', i, i) end
  for i = 1, 10 do fields[#fields + 1] = string.format('"i%d":%d', i, i * 10) end
  for i = 1, 5 do fields[#fields + 1] = string.format('"b%d":true', i) end
  for i = 1, 5 do fields[#fields + 1] = string.format('"e%d":"alpha"', i) end
  return "{" .. table.concat(fields, ",") .. "}"
end

-- wrk.format takes the headers given in place of wrk.headers (the token's), so merge them.
local function with(contentType)
  local all = { ["Content-Type"] = contentType }
  for k, v in pairs(wrk.headers) do all[k] = v end
  return all
end

function init(args)
  mode, path, accept, prefix = args[1], args[2], args[3], args[4]
  pad = string.rep("x", tonumber(args[5] or "0"))
  widgetSpec = buildWidgetSpec()
  wrk.headers["Accept"] = accept
  headers = {
    create = with("application/json"),
    ["merge-patch"] = with("application/merge-patch+json"),
    apply = with("application/apply-patch+yaml"),
  }
end

function request()
  counter = counter + 1
  if mode == "get" then
    return wrk.format("GET", path)
  elseif mode == "create" then
    local body = string.format('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s-%d"},"data":{"k":"%s"}}', prefix, counter, pad)
    return wrk.format("POST", path, headers.create, body)
  elseif mode == "create-custom" then
    local body = string.format('{"apiVersion":"bench.example.com/v1","kind":"Widget","metadata":{"name":"%s-%d"},"spec":%s}', prefix, counter, widgetSpec)
    return wrk.format("POST", path, headers.create, body)
  elseif mode == "merge-patch" then
    local name = "cm-" .. (counter % tonumber(prefix))
    local body = string.format('{"data":{"key":"merge-%d"}}', counter)
    return wrk.format("PATCH", path .. "/" .. name, headers["merge-patch"], body)
  elseif mode == "apply" then
    local name = "cm-" .. (counter % tonumber(prefix))
    local body = string.format('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s"},"data":{"key":"apply-%d"}}', name, counter)
    return wrk.format("PATCH", path .. "/" .. name .. "?fieldManager=bench&force=true", headers.apply, body)
  end
end

function done(summary, latency)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"bytes":%d,"connectErrors":%d,"readErrors":%d,"writeErrors":%d,"statusErrors":%d,"timeouts":%d,"p50Us":%d,"p99Us":%d,"meanUs":%.1f}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.mean))
end
