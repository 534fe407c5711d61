-- The HTTP stack's ceiling: wrk -t1 -c64 -d30s -s scripts/wrk/status.lua http://127.0.0.1:8080
request = function()
  return wrk.format("GET", "/v0/status")
end
