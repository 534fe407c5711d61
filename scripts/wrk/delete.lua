-- wrk -t1 -c64 -d30s -s scripts/wrk/delete.lua http://127.0.0.1:8080
package.path = debug.getinfo(1, "S").source:match("@?(.*/)") .. "?.lua;" .. package.path
local kv = require("common")
init = function() kv.seed() end
request = function()
  return wrk.format("DELETE", kv.path(kv.random_key()))
end
