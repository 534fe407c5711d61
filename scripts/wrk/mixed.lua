-- 90% GET, 10% PUT. wrk -t1 -c64 -d30s -s scripts/wrk/mixed.lua http://127.0.0.1:8080
package.path = debug.getinfo(1, "S").source:match("@?(.*/)") .. "?.lua;" .. package.path
local kv = require("common")
local put_share = tonumber(os.getenv("PUT_SHARE") or "0.1")
init = function() kv.seed() end
request = function()
  if math.random() < put_share then
    return wrk.format("PUT", kv.path(kv.random_key()), nil, kv.value)
  end
  return wrk.format("GET", kv.path(kv.random_key()))
end
