-- Headless end-to-end test of the Neovim plugin (editors/nvim) against the
-- real server, on Neovim 0.7.2 (vim.lsp.start_client path) and 0.11+
-- (vim.lsp.config path):
--   WORK=<dir> TILELS=<bin/tilels> PLUGIN=editors/nvim EXPECT=start_client|vim.lsp.config \
--     nvim --headless -u NONE -S scripts/e2e/nvim-plugin.lua
-- WORK holds kernel.py (copy_fallback.py), cases.py (scripts/e2e/cases.py)
-- and plain.py (Python without the TIRx import). The test never starts a
-- client itself: the plugin must attach on :edit. Prints "ok <step>"
-- lines; exits non-zero on the first failure (cq!) with "FAIL: <why>".
local api = vim.api

local function log(...)
  io.stdout:write(table.concat(vim.tbl_map(tostring, { ... }), " ") .. "\n")
end

local function check(cond, what)
  if not cond then error(what, 2) end
  log("ok", what)
end

local function wait(ms, cond) return vim.wait(ms, cond, 10) end

local function clients_named(name)
  local all = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  return vim.tbl_filter(function(c) return c.name == name end, all)
end

local function buf_text(b) return table.concat(api.nvim_buf_get_lines(b, 0, -1, false), "\n") end

local function read_file(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local s = f:read("*a")
  f:close()
  return s
end

-- The first line (0-based) holding pat, and the byte column after it.
local function find_line(bufnr, pat)
  for i, l in ipairs(api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    local s, e = l:find(pat)
    if s then return i - 1, s - 1, e end
  end
end

-- The text of the floating windows open now.
local function floats_text()
  local out = {}
  for _, w in ipairs(api.nvim_list_wins()) do
    if api.nvim_win_get_config(w).relative ~= "" then
      table.insert(out, buf_text(api.nvim_win_get_buf(w)))
    end
  end
  return table.concat(out, "\n")
end

local function close_floats()
  for _, w in ipairs(api.nvim_list_wins()) do
    if api.nvim_win_get_config(w).relative ~= "" then api.nvim_win_close(w, true) end
  end
end

local work, tilels_bin = vim.env.WORK, vim.env.TILELS
local notes = {}
local pending = false

local ok, err = pcall(function()
  -- Load the plugin as a user would: runtimepath, plugin/, setup().
  vim.opt.runtimepath:append(vim.env.PLUGIN)
  vim.cmd("filetype on")
  vim.cmd("runtime plugin/tilels.lua")
  check(vim.fn.exists(":TilelsLowered") == 2 and vim.fn.exists(":TilelsWriteCUDA") == 2
    and vim.fn.exists(":TilelsCase") == 2, "plugin/tilels.lua defines the user commands")
  vim.notify = function(msg, level, o)
    table.insert(notes, msg)
    log("notify:", msg)
  end
  local tilels = require("tilels")

  -- 0. A missing or too old server: a clear message, no client.
  local function refused(cmd, says)
    notes = {}
    tilels.setup({ cmd = cmd })
    vim.cmd("edit " .. vim.fn.fnameescape(work .. "/kernel.py"))
    local b = api.nvim_get_current_buf()
    wait(200, function() return #clients_named("tilels") > 0 end)
    local said = vim.tbl_filter(function(n) return n:find(says, 1, true) ~= nil end, notes)
    check(#said == 1 and tilels.client(b) == nil and #clients_named("tilels") == 0,
      "refused " .. cmd[1]:gsub(".*/", "") .. ": " .. (said[1] or vim.inspect(notes)))
    vim.cmd("bwipeout! " .. b)
  end
  refused({ work .. "/missing-tilels" }, "is not an executable")
  local old = work .. "/old-tilels"
  vim.fn.writefile({ "#!/bin/sh", "echo 'tilels 0.0.9'" }, old)
  vim.fn.setfperm(old, "rwxr-xr-x")
  refused({ old }, "is tilels 0.0.9; this plugin needs 0.1.0 or newer")
  local other = work .. "/not-tilels"
  vim.fn.writefile({ "#!/bin/sh", "echo 'usage: something else'", "exit 2" }, other)
  vim.fn.setfperm(other, "rwxr-xr-x")
  refused({ other }, "this plugin needs tilels 0.1.0 or newer")
  notes = {}

  local attached = {}
  tilels.setup({
    cmd = { tilels_bin },
    settings = { arch = "sm_80", maxCases = 8 },
    on_attach = function(_, b) attached[b] = true end,
  })
  check(tilels.info():find(vim.env.EXPECT, 1, true) ~= nil, "setup takes the " .. vim.env.EXPECT .. " path")

  -- 1. A Python file without the TIRx import does not attach.
  vim.cmd("edit " .. vim.fn.fnameescape(work .. "/plain.py"))
  local plain = api.nvim_get_current_buf()
  check(vim.bo[plain].filetype == "python", "plain.py is a python buffer")
  wait(500, function() return #clients_named("tilels") > 0 end)
  check(tilels.client(plain) == nil and #clients_named("tilels") == 0,
    "a Python file without the TIRx import does not attach (no server started)")

  -- 2. The kernel attaches on :edit, and the fallback warning appears.
  vim.cmd("edit " .. vim.fn.fnameescape(work .. "/kernel.py"))
  local src = api.nvim_get_current_buf()
  check(wait(10000, function()
    local c = tilels.client(src)
    return c ~= nil and c.initialized and attached[src]
  end), "kernel.py attaches on :edit (on_attach called)")
  local client = tilels.client(src)
  local function diag(bufnr, code)
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      local c = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
      if c == code then return d end
    end
  end
  check(wait(10000, function() return diag(src, "dispatch/fallback-only") ~= nil end),
    "the dispatch/fallback-only warning is published")
  check(diag(src, "dispatch/fallback-only").severity == vim.diagnostic.severity.WARN, "as a warning")
  check(tilels.client(plain) == nil, "plain.py still has no client")

  -- 3. Hover (vim.lsp.buf.hover, the user's K) names the fallback variant.
  local line, col = find_line(src, "Tx%.warp%.copy")
  check(line ~= nil, "found the Tx call")
  api.nvim_win_set_cursor(0, { line + 1, col + 4 })
  vim.lsp.buf.hover()
  check(wait(10000, function() return floats_text():find("fallback", 1, true) ~= nil end),
    "the hover window names the fallback variant")
  check(floats_text():find("gmem_smem", 1, true) ~= nil, "the hover lists the declined gmem_smem")
  if vim.fn.has("nvim-0.10") == 0 then
    -- Neovim 0.7 shows Markdown tables raw: the plugin asks for plain text.
    check(floats_text():find("|---|", 1, true) == nil and floats_text():find("**", 1, true) == nil,
      "the hover is plain text (no Markdown table or emphasis) before Neovim 0.10")
    check(floats_text():find("gmem_smem   10    rejected", 1, true) ~= nil,
      "its variant table is aligned columns")
  end
  close_floats()

  -- 4. :TilelsLowered opens the CUDA in a split, with the arch setting applied.
  local wins = #api.nvim_tabpage_list_wins(0)
  vim.cmd("TilelsLowered")
  local view
  check(wait(10000, function()
    view = tilels.views(src)[1]
    return view and buf_text(view):find("__global__", 1, true) ~= nil and vim.fn.bufwinid(view) ~= -1
  end), ":TilelsLowered shows a split whose buffer holds __global__")
  check(#api.nvim_tabpage_list_wins(0) == wins + 1, "in one new window")
  check(api.nvim_buf_get_name(view) == "tilels://" .. api.nvim_buf_get_name(src) .. ".cu",
    "named tilels://<source>.cu")
  check(vim.bo[view].filetype == "cuda" and vim.bo[view].buftype == "nofile" and not vim.bo[view].modifiable,
    "a read-only scratch buffer with filetype cuda")
  check(buf_text(view):find("// tilels: arch=sm_80", 1, true) ~= nil,
    "the settings reached the server (arch=sm_80)")
  check(api.nvim_get_current_buf() == src, "the cursor stays in the source")
  vim.fn.system({ tilels_bin, "--lower", work .. "/kernel.py", "--arch", "sm_80", "--no-line-directives", "-o", work .. "/cli.cu" })
  local cli = read_file(work .. "/cli.cu")
  check(buf_text(view) .. "\n" == cli, "the view equals tilels --lower --arch sm_80")

  -- 4b. The source <-> view map (tilels/outputRanges, outmap.lua): the
  -- view opens at the call under the cursor; moving the source cursor
  -- onto the other call scrolls the view to its lines and highlights
  -- them; the cursor on a line of the view highlights its source call.
  -- (Headless Neovim runs no CursorMoved between script lines: the test
  -- fires it.)
  local vwin = vim.fn.bufwinid(view)
  local omap
  check(wait(10000, function() omap = tilels.output_map(view); return omap ~= nil end), "the view's output map arrives")
  local calls = vim.tbl_filter(function(r) return r.kind == "call" end, omap.ranges)
  local nview = api.nvim_buf_line_count(view)
  check(#calls == 2, "the map holds both copies")
  for _, r in ipairs(calls) do
    local s, e = r.output.start.line, r.output["end"].line
    check(s >= 0 and s < e and e <= nview, "a call's lines are non-empty and inside the view")
    local first = api.nvim_buf_get_lines(view, s, s + 1, false)[1]
    check(first:find("// Tx.warp.copy", 1, true) ~= nil and first:find("-> fallback", 1, true) ~= nil,
      "a call's lines start at its comment: " .. first)
  end
  local top = api.nvim_win_call(vwin, function() return vim.fn.line("w0") end)
  check(top == calls[1].output.start.line + 1, "the view opens at the call under the cursor (line " .. top .. "), not at the #includes")
  local ns = api.nvim_get_namespaces()["tilels_outmap"]
  local function marked(b)
    local rows = {}
    for _, m in ipairs(api.nvim_buf_get_extmarks(b, ns, 0, -1, {})) do table.insert(rows, m[2]) end
    return rows
  end
  api.nvim_win_call(vwin, function() vim.cmd("normal! G") end)
  local l2 = find_line(src, "Tx%.warp%.copy%(B")
  api.nvim_win_set_cursor(0, { l2 + 1, 6 })
  vim.cmd("doautocmd <nomodeline> CursorMoved")
  local w0 = api.nvim_win_call(vwin, function() return vim.fn.line("w0") end)
  local w1 = api.nvim_win_call(vwin, function() return vim.fn.line("w$") end)
  local c2 = calls[2].output.start.line + 1
  check(w0 <= c2 and c2 <= w1, "the cursor on the second copy scrolls the view to it (" .. w0 .. "-" .. w1 .. " shows " .. c2 .. ")")
  local lit = marked(view)
  check(#lit == calls[2].output["end"].line - calls[2].output.start.line and lit[1] == calls[2].output.start.line,
    "the view highlights the second copy's " .. #lit .. " lines")
  local smarks = marked(src)
  check(#smarks == 1 and smarks[1] == l2, "the source highlights the call under the cursor")
  local body = calls[1].output.start.line + 3
  api.nvim_win_set_cursor(vwin, { body, 0 })
  api.nvim_win_call(vwin, function() vim.cmd("doautocmd <nomodeline> CursorMoved") end)
  smarks = marked(src)
  local l1 = find_line(src, "Tx%.warp%.copy%(A_smem")
  check(#smarks == 1 and smarks[1] == l1, "a line of the first copy's lowering highlights its source call")
  check(marked(view)[1] == calls[1].output.start.line, "and its lines in the view")

  -- Run again: the same view, refreshed, no second split.
  vim.cmd("TilelsLowered")
  wait(300, function() return false end)
  check(#api.nvim_tabpage_list_wins(0) == wins + 1 and #tilels.views(src) == 1,
    "running it again reuses the view")

  -- 5. Live refresh: an edit of the source reaches the view (debounced).
  local rline = find_line(src, "^ROWS, COLS = 4, 6")
  check(rline ~= nil, "found the shape line")
  api.nvim_buf_set_lines(src, rline, rline + 1, false, { "ROWS, COLS = 4, 8" })
  check(wait(10000, function() return buf_text(view):find("A_smem_ptr[32]", 1, true) ~= nil end),
    "the view follows an edit of the source (24 -> 32 elements)")
  api.nvim_buf_set_lines(src, rline, rline + 1, false, { "ROWS, COLS = 4, 6" })
  check(wait(10000, function() return buf_text(view):find("A_smem_ptr[24]", 1, true) ~= nil end),
    "and the edit back")
  check(wait(10000, function() return buf_text(view) .. "\n" == cli end), "the view is the CLI's again")
  vim.cmd("silent write")

  -- 6. :TilelsWriteCUDA writes kernel.cu beside the source.
  local cu = work .. "/kernel.cu"
  os.remove(cu)
  vim.cmd("TilelsWriteCUDA")
  check(wait(10000, function() return read_file(cu) ~= nil and read_file(cu) ~= "" end),
    ":TilelsWriteCUDA writes kernel.cu beside the source")
  check(read_file(cu) == cli, "kernel.cu equals tilels --lower --arch sm_80")
  -- Again, with kernel.cu loaded in a buffer: the buffer follows the file.
  vim.cmd("badd " .. vim.fn.fnameescape(cu))
  local cubuf = vim.fn.bufnr(cu)
  vim.fn.bufload(cubuf)
  check(buf_text(cubuf) .. "\n" == cli, "kernel.cu loaded")
  api.nvim_buf_set_lines(src, rline, rline + 1, false, { "ROWS, COLS = 2, 6" })
  vim.cmd("TilelsWriteCUDA")
  check(wait(10000, function()
    local s = read_file(cu) or ""
    return s:find("A_smem_ptr[12]", 1, true) ~= nil
  end), "a second write replaces kernel.cu")
  check(wait(5000, function() return buf_text(cubuf) .. "\n" == read_file(cu) end),
    "and the unmodified kernel.cu buffer is reloaded, once")
  api.nvim_buf_set_lines(src, rline, rline + 1, false, { "ROWS, COLS = 4, 6" })
  vim.cmd("silent write")
  -- The server's code action does the same.
  os.remove(cu)
  local titles
  local real_select = vim.ui.select
  vim.ui.select = function(items, o, on_choice)
    titles = {}
    for i, it in ipairs(items) do -- {client_id, action} on 0.7, {action, ctx} on 0.11
      local a = it.action or it[2]
      table.insert(titles, a.title)
      if a.title == "Write lowered CUDA to kernel.cu" then return on_choice(it, i) end
    end
    on_choice(nil)
  end
  vim.lsp.buf.code_action()
  check(wait(10000, function() return read_file(cu) == cli end),
    "the code action " .. vim.inspect(titles) .. " writes kernel.cu")
  check(wait(5000, function() return buf_text(cubuf) .. "\n" == cli end), "and the kernel.cu buffer follows")
  vim.ui.select = real_select

  -- 7. Cases: :TilelsCase lists them (vim.ui.select) and selects the choice.
  vim.cmd("edit " .. vim.fn.fnameescape(work .. "/cases.py"))
  local cases = api.nvim_get_current_buf()
  check(wait(10000, function() return tilels.client(cases) ~= nil end), "cases.py attaches")
  check(tilels.client(cases).id == client.id and #clients_named("tilels") == 1,
    "to the same client (one per root)")
  local kline = find_line(cases, "Tx%.warp%.copy")
  api.nvim_win_set_cursor(0, { kline + 1, 8 })
  local offered
  vim.ui.select = function(items, o, on_choice)
    offered = vim.tbl_map(o.format_item, items)
    on_choice(items[2], 2)
  end
  local picked
  tilels.pick_case({ on_done = function(res) picked = res end })
  check(wait(10000, function() return picked ~= nil end), ":TilelsCase selects a case")
  vim.ui.select = real_select
  log("offered:", vim.inspect(offered))
  check(#offered == 2 and offered[1]:find("rows=32, cols=32", 1, true) and offered[1]:find("(selected)", 1, true)
    and offered[2]:find("rows=4, cols=6", 1, true), "the picker offers both cases, the first selected")
  check(picked.case == 2 and picked.count == 2, "case 2/2 selected")
  local cview
  tilels.lowered({ on_done = function(b) cview = b end })
  check(wait(10000, function()
    return cview and buf_text(cview):find("// tilels: stage case 2/2: rows=4, cols=6", 1, true) ~= nil
  end), "the lowered view names the selected case")
  check(buf_text(cview):find("-> fallback", 1, true) ~= nil and buf_text(cview):find("-> gmem_smem", 1, true) == nil,
    "and shows its CUDA (the fallback copy)")
  -- :TilelsCase N selects without asking, and the open view follows.
  vim.cmd("TilelsCase 1")
  check(wait(10000, function() return buf_text(cview):find("stage case 1/2", 1, true) ~= nil end),
    ":TilelsCase 1 selects case 1 and refreshes the view")
  check(buf_text(cview):find("-> gmem_smem", 1, true) ~= nil, "whose CUDA is case 1's")
  -- One kernel's view: :TilelsLowered KERNEL.
  vim.cmd("TilelsLowered stage")
  local kview
  check(wait(10000, function()
    for _, b in ipairs(tilels.views(cases)) do
      if api.nvim_buf_get_name(b):find("%.cu%?kernel=stage$") and buf_text(b):find("__global__", 1, true) then
        kview = b
        return true
      end
    end
  end), ":TilelsLowered stage shows that kernel's view (tilels://<source>.cu?kernel=stage)")
  -- Without its bind directive the factory has no values: the server has
  -- nothing to print for stage. The view keeps the last CUDA and says why.
  local dline = find_line(cases, "^# tilels: bind")
  local directive = api.nvim_buf_get_lines(cases, dline, dline + 2, false)
  api.nvim_buf_set_lines(cases, dline, dline + 2, false, {})
  check(wait(10000, function()
    local first = api.nvim_buf_get_lines(kview, 0, 1, false)[1] or ""
    return first:find("// tilels: not refreshed: ", 1, true) ~= nil
  end), "an unbound kernel keeps the view's last CUDA, marked not refreshed")
  log("stale:", api.nvim_buf_get_lines(kview, 0, 1, false)[1])
  check(buf_text(kview):find("__global__", 1, true) ~= nil, "the last CUDA is still there")
  api.nvim_buf_set_lines(cases, dline, dline, false, directive)
  check(wait(10000, function()
    local first = api.nvim_buf_get_lines(kview, 0, 1, false)[1] or ""
    return first:find("stage case 1/2", 1, true) ~= nil
  end), "restored: the view is fresh again")

  -- 8. Code lenses: the case lens and "show lowered CUDA" (run through the
  -- plugin's client-side tilels.showLowered).
  vim.lsp.codelens.refresh()
  local lenses
  check(wait(10000, function()
    lenses = vim.lsp.codelens.get(cases)
    return #lenses >= 2
  end), "code lenses arrive")
  local titles = vim.tbl_map(function(l) return l.command and l.command.title or "" end, lenses)
  log("lenses:", vim.inspect(titles))
  local show_lens
  for _, l in ipairs(lenses) do
    if l.command and l.command.command == "tilels.showLowered" then show_lens = l end
  end
  check(show_lens ~= nil, "a lens runs tilels.showLowered")
  vim.cmd("only")
  api.nvim_win_set_cursor(0, { show_lens.range.start.line + 1, 0 })
  real_select = vim.ui.select
  vim.ui.select = function(items, o, on_choice)
    for i, it in ipairs(items) do -- {client, lens} pairs
      if it.lens.command.command == "tilels.showLowered" then return on_choice(it, i) end
    end
    on_choice(nil)
  end
  vim.lsp.codelens.run()
  vim.ui.select = real_select
  log("lens arguments:", vim.inspect(show_lens.command.arguments))
  check(wait(10000, function()
    for _, b in ipairs(tilels.views(cases)) do
      if vim.fn.bufwinid(b) ~= -1 and buf_text(b):find("__global__", 1, true) then return true end
    end
  end), "running the lens shows the lowered view in a split")

  -- 9. A file that gains the TIRx import attaches when written.
  vim.cmd("edit " .. vim.fn.fnameescape(work .. "/plain.py"))
  check(tilels.client(plain) == nil, "plain.py not attached")
  api.nvim_buf_set_lines(plain, 0, 0, false, { "from tvm.script import ir as I, tirx as T" })
  vim.cmd("silent write")
  check(wait(10000, function() return tilels.client(plain) ~= nil end),
    "plain.py attaches once it imports tirx and is written")

  -- 10. New settings reach the running server.
  tilels.set_settings({ arch = "sm_89" })
  vim.cmd("edit " .. vim.fn.fnameescape(work .. "/kernel.py"))
  check(wait(10000, function()
    local v = tilels.views(src)[1]
    if v and buf_text(v):find("arch=sm_89", 1, true) then return true end
    if not pending then
      pending = true
      tilels.lowered({ on_done = function() pending = false end })
    end
  end), "set_settings: the lowered CUDA is for sm_89")

  -- 11. Completion (issue 18): the plugin sets the LSP omnifunc where
  -- nothing else did; "Tx.warp." offers the ops, and the accepted item's
  -- text edit inserts it.
  vim.cmd("edit " .. vim.fn.fnameescape(work .. "/kernel.py"))
  check(vim.bo[src].omnifunc == "v:lua.vim.lsp.omnifunc", "omnifunc is the LSP's")
  local cline = find_line(src, "Tx%.warp%.copy")
  api.nvim_buf_set_lines(src, cline, cline, false, { "    Tx.warp." })
  local items
  check(wait(10000, function()
    local resp = vim.lsp.buf_request_sync(src, "textDocument/completion",
      { textDocument = { uri = vim.uri_from_bufnr(src) }, position = { line = cline, character = 12 } }, 5000)
    local r = resp and resp[client.id] and resp[client.id].result
    items = r and (r.items or r)
    return items ~= nil and #items > 0
  end), "completion after Tx.warp.")
  local sum
  for _, it in ipairs(items) do
    if it.label == "sum" then sum = it end
  end
  check(sum ~= nil and sum.detail:find("Tx.warp.sum(dst", 1, true) ~= nil, "Tx.warp.sum offered with its signature")
  vim.lsp.util.apply_text_edits({ sum.textEdit }, src, client.offset_encoding or "utf-16")
  check(api.nvim_buf_get_lines(src, cline, cline + 1, false)[1] == "    Tx.warp.sum", "accepting it inserts sum")
  api.nvim_buf_set_lines(src, cline, cline + 1, false, {})

  local deprecated = vim.tbl_filter(function(n) return n:find("deprecated", 1, true) ~= nil end, notes)
  check(#deprecated == 0, "no deprecation notice " .. vim.inspect(deprecated))
  check(vim.v.errmsg == "", "no error message (" .. vim.v.errmsg .. ")")

  local id = client.id
  vim.lsp.stop_client(id)
  check(wait(5000, function() return vim.lsp.get_client_by_id(id) == nil end), "the server stops")
end)
if not ok then log("FAIL:", err) end
vim.cmd(ok and "qa!" or "cq!")
