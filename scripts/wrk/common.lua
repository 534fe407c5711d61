-- Shared by the quorumkv wrk scripts: key space, value size and quorum from the environment.
--   KEYS   number of distinct keys (default 1000000), keys are k0 .. k(KEYS-1)
--   VALUE  value size in bytes for PUT (default 100)
--   QUORUM extra query string, e.g. "&ack=2&from=3" (default none)
--   PREFIX key prefix (default "k"), as given to io.quorumkv.bench.Fill
local M = {}
M.keys = tonumber(os.getenv("KEYS") or "1000000")
M.value = string.rep("v", tonumber(os.getenv("VALUE") or "100"))
M.quorum = os.getenv("QUORUM") or ""
M.prefix = os.getenv("PREFIX") or "k"

function M.path(key)
  return "/v0/entity?id=" .. M.prefix .. key .. M.quorum
end

function M.random_key()
  return math.random(0, M.keys - 1)
end

function M.seed()
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
end

return M
