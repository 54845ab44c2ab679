# One recording (slurped, `jq -s`) → its HTTP exchanges, one per request, lane by lane:
# what the response said at the HTTP level, which `mcp-raw diff` (messages only) does
# not compare. Used by compare/check.sh.
def data_of: [.lines[] | select(.[0] == "data") | .[1]] | join("\n");
[ .[1:] | group_by(.lane)[] | . as $lane
  | reduce .[] as $e ([];
      if $e.fact == "head" and $e.dir == "c2s" then
        . + [{lane: $e.lane, request: ($e.start | split(" ")[0]), method: null,
              status: null, headers: [], content_type: null, priming: 0, events: 0}]
      elif length == 0 then .
      elif $e.fact == "message" and $e.dir == "c2s" then .[-1].method //= ($e.method // "response")
      elif $e.fact == "head" and $e.dir == "s2c" then
        .[-1].status = ($e.start | split(" ")[1:] | join(" "))
        | .[-1].headers = [$e.headers[] | .[0] | ascii_downcase | select(. != "date")]
        | .[-1].content_type = ([$e.headers[] | select(.[0] | ascii_downcase == "content-type") | .[1]] | first // "(none)")
      elif $e.fact == "sse" and $e.dir == "s2c" then
        if ($e | data_of) == "" then .[-1].priming += 1 else .[-1].events += 1 end
      else . end)
  | to_entries[] | .value + {n: (.key + 1)} ]
