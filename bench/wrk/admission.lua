-- wrk script: POSTs one AdmissionReview body over keep-alive and prints the result as one JSON line.
-- Arguments after `--`: <body file> [requests per second for this thread; 0 or absent: as fast as possible].
-- With a rate, each finished request's connection waits for the next free slot of a per-thread schedule, so
-- the offered load stays fixed while responses are fast enough (wrk has no open-loop mode; wrk2 is not packaged).
local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } hk_timespec;
  int clock_gettime(int clock_id, hk_timespec *tp);
]]
local ts = ffi.new("hk_timespec")
local function now_ms()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end

local interval = 0
local next_at = 0

function init(args)
  local f = assert(io.open(args[1], "rb"))
  wrk.body = f:read("*a")
  f:close()
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  local rate = tonumber(args[2] or "0")
  if rate > 0 then
    interval = 1000 / rate
    next_at = now_ms()
  end
end

function delay()
  if interval == 0 then return 0 end
  local now = now_ms()
  if next_at < now then next_at = now end
  local wait = next_at - now
  next_at = next_at + interval
  return math.floor(wait + 0.5)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"bytes":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latencyUs":{"p50":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d,"mean":%.1f}}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9), latency.max, latency.mean))
end
