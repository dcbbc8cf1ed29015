-- Neovim (0.7.2+) headless end-to-end test of the tilels language server.
--   TEST_FILE=<kernel.py> TILELS=<bin/tilels> nvim --headless -u NONE -S scripts/e2e/nvim.lua
-- Opens the kernel, waits for the fallback warning, hovers the Tx call,
-- runs tilels.lower, edits the buffer into a syntax error and back, asks
-- for completion and signature help, applies the quick fix of the warning,
-- and checks each answer. Prints "ok <step>" lines; exits non-zero on the first
-- failure (cq!) with "FAIL: <why>".
local function log(...)
  io.stdout:write(table.concat(vim.tbl_map(tostring, { ... }), " ") .. "\n")
end

local function check(cond, what)
  if not cond then error(what, 2) end
  log("ok", what)
end

local function result_of(resp, id)
  assert(resp and resp[id], "no response from the server")
  assert(not resp[id].err, "server error: " .. vim.inspect(resp[id].err))
  return resp[id].result
end

local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(vim.env.TEST_FILE))
  local bufnr = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start_client({
    name = "tilels",
    cmd = { vim.env.TILELS },
    root_dir = vim.fn.fnamemodify(vim.env.TEST_FILE, ":p:h"),
  })
  check(id ~= nil, "client started")
  vim.lsp.buf_attach_client(bufnr, id)
  check(vim.wait(10000, function()
    local c = vim.lsp.get_client_by_id(id)
    return c and c.initialized
  end, 10), "initialized")
  local uri = vim.uri_from_bufnr(bufnr)

  -- 1. diagnostics: the fallback-only warning on the first Tx call.
  local function diags_with(code)
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if d.code == code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code == code) then
        return d
      end
    end
  end
  check(vim.wait(10000, function() return diags_with("dispatch/fallback-only") ~= nil end, 10),
    "fallback-only warning published")
  local d = diags_with("dispatch/fallback-only")
  check(d.severity == vim.diagnostic.severity.WARN, "warning severity")
  log("diagnostic:", d.lnum, d.col, d.message)

  -- 2. hover on the call: names the chosen variant and the declines.
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local line, col
  for i, l in ipairs(lines) do
    local c = l:find("Tx%.warp%.copy")
    if c then line, col = i - 1, c + 3; break end
  end
  check(line ~= nil, "found a Tx call")
  local r = vim.lsp.buf_request_sync(bufnr, "textDocument/hover",
    { textDocument = { uri = uri }, position = { line = line, character = col } }, 10000)
  local hover = result_of(r, id)
  check(hover and hover.contents and hover.contents.value:find("fallback", 1, true),
    "hover names the fallback variant")
  check(hover.contents.value:find("gmem_smem", 1, true), "hover lists the declined gmem_smem")
  -- The call's picture, as a Unicode grid (hoverPicture "text"): lane 0
  -- moves every element of the 4x6 tile.
  check(hover.contents.value:find("partition of A_smem[0:4, 0:6]", 1, true)
    and hover.contents.value:find("  0│00 00 00 00 00 00", 1, true), "hover draws the partition grid")

  -- 3. tilels.lower returns the CUDA and TIRx of the file.
  r = vim.lsp.buf_request_sync(bufnr, "workspace/executeCommand",
    { command = "tilels.lower", arguments = { uri } }, 10000)
  local low = result_of(r, id)
  check(type(low) == "table" and type(low.cuda) == "string" and low.cuda:find("__global__", 1, true),
    "tilels.lower returns CUDA")
  check(type(low.tirx) == "string" and low.tirx:find("def ", 1, true), "tilels.lower returns TIRx")

  -- 4. an edit (didChange) into a syntax error is diagnosed, and fixing it clears it.
  vim.api.nvim_buf_set_lines(bufnr, line, line + 1, false, { "    Tx.warp.copy(A_smem[:, :], A[:, :]" })
  check(vim.wait(10000, function()
    for _, x in ipairs(vim.diagnostic.get(bufnr)) do
      if x.severity == vim.diagnostic.severity.ERROR then return true end
    end
  end, 10), "syntax error after an edit")
  vim.api.nvim_buf_set_lines(bufnr, line, line + 1, false, { lines[line + 1] })
  check(vim.wait(10000, function()
    for _, x in ipairs(vim.diagnostic.get(bufnr)) do
      if x.severity == vim.diagnostic.severity.ERROR then return false end
    end
    return diags_with("dispatch/fallback-only") ~= nil
  end, 10), "error cleared after the fix")

  -- 5. completion and signature help (issue 18): "Tx." offers the scopes
  -- and ops; accepting "copy" applies its text edit; dispatch="" offers
  -- the variants with the dispatcher's verdict; inside the call the
  -- signature help names the active parameter.
  local function complete_at(l, c)
    local resp = vim.lsp.buf_request_sync(bufnr, "textDocument/completion",
      { textDocument = { uri = uri }, position = { line = l, character = c } }, 10000)
    local res = result_of(resp, id)
    return res and (res.items or res) or {}
  end
  local function item(items, label)
    for _, it in ipairs(items) do
      if it.label == label then return it end
    end
  end
  vim.api.nvim_buf_set_lines(bufnr, line, line, false, { "    Tx." })
  local items = complete_at(line, 7)
  check(item(items, "warp") and item(items, "copy") and item(items, "gemm_async"), "completion after Tx. lists scopes and ops")
  local copy = item(items, "copy")
  check(copy.detail and copy.detail:find("dispatch=None", 1, true), "the op's item shows its signature")
  vim.lsp.util.apply_text_edits({ copy.textEdit }, bufnr, "utf-16")
  check(vim.api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1] == "    Tx.copy", "accepting copy inserts it")
  vim.api.nvim_buf_set_lines(bufnr, line, line + 1, false, {})
  -- dispatch="" on the first copy (the 4x6 tile: only fallback applies).
  local orig = lines[line + 1]
  vim.api.nvim_buf_set_lines(bufnr, line, line + 1, false, { "    Tx.warp.copy(A_smem[:, :], A[:, :], dispatch=\"\")" })
  local quote = #"    Tx.warp.copy(A_smem[:, :], A[:, :], dispatch=\""
  local fb
  check(vim.wait(10000, function()
    fb = item(complete_at(line, quote), "fallback")
    return fb ~= nil and fb.detail ~= nil and fb.detail:find("applies", 1, true) ~= nil
  end, 50), "dispatch=\"\" offers fallback, which applies")
  local vec = item(complete_at(line, quote), "gmem_smem")
  check(vec and vec.detail:find("not divisible", 1, true), "gmem_smem is offered with its decline reason")
  local sh = result_of(vim.lsp.buf_request_sync(bufnr, "textDocument/signatureHelp",
    { textDocument = { uri = uri }, position = { line = line, character = #"    Tx.warp.copy(A_smem[:, :], " } }, 10000), id)
  check(sh and sh.signatures and sh.signatures[1].label:find("Tx.warp.copy(dst, src", 1, true) and sh.activeParameter == 1,
    "signature help names the src parameter")
  vim.api.nvim_buf_set_lines(bufnr, line, line + 1, false, { orig })

  -- 6. the quick fix of the fallback warning (lower/fix.go): the verified
  -- change of the tile extent (ROWS, COLS = 4, 6 -> 4, 8), applied as a
  -- workspace edit; the re-analysed file has no fallback warning left.
  check(vim.wait(10000, function() d = diags_with("dispatch/fallback-only"); return d ~= nil end, 10), "the fallback warning is back after the completion steps")
  local lsp_d = d.user_data and d.user_data.lsp or {
    range = { start = { line = d.lnum, character = d.col }, ["end"] = { line = d.end_lnum, character = d.end_col } },
    message = d.message, code = "dispatch/fallback-only", severity = 2,
  }
  r = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", {
    textDocument = { uri = uri },
    range = { start = { line = d.lnum, character = d.col }, ["end"] = { line = d.lnum, character = d.col } },
    context = { diagnostics = { lsp_d }, only = { "quickfix" } },
  }, 20000)
  local fix
  for _, a in ipairs(result_of(r, id) or {}) do
    if a.isPreferred and a.edit and a.title:find("(verified)", 1, true) then fix = a; break end
  end
  check(fix ~= nil, "a verified quick fix of the fallback warning")
  log("quick fix:", fix.title)
  vim.lsp.util.apply_workspace_edit(fix.edit, "utf-16")
  local text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
  check(text:find("ROWS, COLS = 4, 8", 1, true), "the quick fix changed the extent")
  check(vim.wait(10000, function()
    return diags_with("dispatch/fallback-only") == nil and #vim.diagnostic.get(bufnr) == 0
  end, 10), "fallback warning gone after the quick fix")

  vim.lsp.stop_client(id)
  vim.wait(2000, function() return vim.lsp.get_client_by_id(id) == nil end, 10)
end)
if not ok then log("FAIL:", err) end
vim.cmd(ok and "qa!" or "cq!")
