-- mixed.lua: wrk script for scripts/load.sh — a mixed read/write load on the
-- Bookshelf service: 80% GETs (lists, single records, eager loading, top
-- rated), 20% POSTs (15% reviews, 5% books), each POST body unique.
--
-- Every acknowledged write (a 201 response) is recorded by its unique tag
-- (the book's ISBN or the review's reviewer, both echoed in the response) in
-- <outdir>/acked-<thread>.csv, so that load.sh can check each one is in the
-- database after the service stopped. Non-2xx responses are counted.
--
-- The output directory comes from the environment (BOOKSHELF_LOAD_DIR, read
-- by the threads and by done(), which runs in wrk's main Lua state where
-- init() never ran); arguments after `--`: seeded authors, seeded books, and
-- optionally the tag prefix (`wrk` and letters; default `wrk`), so that several wrk
-- runs at once (load-postgres.sh, one per service process) write distinct
-- tags: `<prefix>-<thread>-<n>`.

local outdir = os.getenv("BOOKSHELF_LOAD_DIR") or "."

local threads = {}
local thread_count = 0

function setup(thread)
    thread_count = thread_count + 1
    thread:set("tid", thread_count)
    table.insert(threads, thread)
end

function init(args)
    authors = tonumber(args[1] or "10")
    books = tonumber(args[2] or "100")
    prefix = args[3] or "wrk"
    counter = 0
    non2xx = 0
    unavailable = 0
    failed = 0
    responses = 0
    posts_ok = 0
    acked = io.open(outdir .. "/acked-" .. tid .. ".csv", "w")
    acked:setvbuf("line")
    math.randomseed(os.time() + tid * 7919)
end

local json_headers = { ["Content-Type"] = "application/json" }

function request()
    local roll = math.random(100)
    if roll <= 30 then
        return wrk.format("GET", "/books?author_id=" .. math.random(authors) .. "&sort=-published&page=" .. math.random(2) .. "&per_page=20")
    elseif roll <= 50 then
        return wrk.format("GET", "/books/" .. math.random(books))
    elseif roll <= 60 then
        return wrk.format("GET", "/reviews?book_id=" .. math.random(books) .. "&sort=-rating&per_page=20")
    elseif roll <= 70 then
        return wrk.format("GET", "/authors/" .. math.random(authors) .. "?include=books")
    elseif roll <= 80 then
        return wrk.format("GET", "/books/top?limit=10")
    end
    counter = counter + 1
    local tag = prefix .. "-" .. tid .. "-" .. counter
    if roll <= 95 then
        local body = string.format('{"book_id": %d, "reviewer": "%s", "rating": %d, "comment": "load test"}',
            math.random(books), tag, math.random(5))
        return wrk.format("POST", "/reviews", json_headers, body)
    end
    local body = string.format('{"author_id": %d, "title": "Load %s", "isbn": "%s", "published": %d, "price_cents": %d}',
        math.random(authors), tag, tag, 1900 + math.random(125), math.random(5000))
    return wrk.format("POST", "/books", json_headers, body)
end

function response(status, headers, body)
    responses = responses + 1
    if status < 200 or status > 299 then
        non2xx = non2xx + 1
        if status == 503 then unavailable = unavailable + 1 end
        if status == 500 then failed = failed + 1 end
        return
    end
    if status == 201 then
        posts_ok = posts_ok + 1
        local isbn = body:match('"isbn":"(wrk%a*%-[%d%-]+)"')
        if isbn then
            acked:write("book,", isbn, "\n")
        else
            local reviewer = body:match('"reviewer":"(wrk%a*%-[%d%-]+)"')
            acked:write("review,", reviewer or "unparsed", "\n")
        end
    end
end

function done(summary, latency, requests)
    local non2xx_total, unavailable_total, failed_total, posts_total, responses_total = 0, 0, 0, 0, 0
    for _, thread in ipairs(threads) do
        non2xx_total = non2xx_total + (thread:get("non2xx") or 0)
        unavailable_total = unavailable_total + (thread:get("unavailable") or 0)
        failed_total = failed_total + (thread:get("failed") or 0)
        posts_total = posts_total + (thread:get("posts_ok") or 0)
        responses_total = responses_total + (thread:get("responses") or 0)
    end
    local seconds = summary.duration / 1e6
    local e = summary.errors
    local out = io.open(outdir .. "/summary.txt", "w")
    out:write(string.format("requests=%d\n", summary.requests))
    out:write(string.format("responses=%d\n", responses_total))
    out:write(string.format("seconds=%.2f\n", seconds))
    out:write(string.format("rps=%.0f\n", summary.requests / seconds))
    out:write(string.format("p50_ms=%.2f\n", latency:percentile(50) / 1000))
    out:write(string.format("p90_ms=%.2f\n", latency:percentile(90) / 1000))
    out:write(string.format("p99_ms=%.2f\n", latency:percentile(99) / 1000))
    out:write(string.format("max_ms=%.2f\n", latency.max / 1000))
    out:write(string.format("non2xx=%d\n", non2xx_total))
    out:write(string.format("status503=%d\n", unavailable_total))
    out:write(string.format("status500=%d\n", failed_total))
    out:write(string.format("posts_acked=%d\n", posts_total))
    out:write(string.format("socket_errors=%d\n", e.connect + e.read + e.write + e.timeout))
    out:close()
end
