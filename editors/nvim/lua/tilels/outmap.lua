-- Colour-links a source buffer with its lowered views, as Compiler Explorer
-- does: a view opens at the kernel (or tile call) under the source cursor;
-- moving the cursor onto a tile call highlights the lines it produced in
-- every visible view (TilelsLinked, default link Visual) and scrolls them
-- there; the cursor in a view highlights and reveals the source call.
--
-- The map is the server's tilels/outputRanges answer for the view's
-- tilels-lowered: document (lsp/output_ranges.go), whose text is this
-- view's with one more line first (the server's stamp line): output lines
-- are moved up by STAMP. Asked again after every refresh of the view.
local api = vim.api

local M = {}

-- The server's view has one stamp line above the text of tilels.lower
-- (lsp/text_document_content.go, loweredText) that these views lack.
M.STAMP = 1

local ns = api.nvim_create_namespace('tilels_outmap')
vim.cmd('highlight default link TilelsLinked Visual')

local maps = {} -- view bufnr -> { src = bufnr, ranges = {...} }

-- The tilels-lowered: URI of a view (lsp/lowered.go, loweredURI).
function M.view_uri(src, kind, kernel)
  local name = api.nvim_buf_get_name(src)
  if name == '' then return nil end
  local u = vim.uri_from_fname(name .. (kind == 'tirx' and '.tirx' or '.cu')):gsub('^file:', 'tilels-lowered:')
  if kernel and kernel ~= '' then u = u .. '?kernel=' .. kernel end
  return u
end

local function contains(r, line, col)
  local s, e = r.source.start, r.source['end']
  if line < s.line or (line == s.line and col < s.character) then return false end
  if line > e.line or (line == e.line and col >= e.character) then return false end
  return true
end

-- The innermost range ok accepts: the first call, else the first kernel.
local function innermost(ranges, ok)
  local best
  for _, r in ipairs(ranges or {}) do
    if ok(r) and (best == nil or (r.kind == 'call' and best.kind ~= 'call')) then best = r end
  end
  return best
end

--- The range whose source holds (line, col), 0-based (col in UTF-16 units).
function M.at_source(ranges, line, col)
  return innermost(ranges, function(r) return contains(r, line, col) end)
end

--- The range whose output holds line (0-based) of the view.
function M.at_line(ranges, line)
  return innermost(ranges, function(r) return r.output.start.line <= line and line < r.output['end'].line end)
end

--- Where a view opens for the source cursor: the range under it, else the
--- kernel above it, else the first kernel.
function M.opening(ranges, line, col)
  local at = M.at_source(ranges, line, col)
  if at then return at end
  local above, first
  for _, r in ipairs(ranges or {}) do
    if r.kind == 'kernel' then
      first = first or r
      if r.source.start.line <= line then above = r end
    end
  end
  return above or first
end

--- The map of view b (nil before the server answered).
function M.map(b)
  return maps[b]
end

local function byte_col(bufnr, line, char)
  local l = api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1] or ''
  local ok, i = pcall(vim.str_byteindex, l, char, true)
  if not ok or type(i) ~= 'number' then i = char end
  return math.min(i, #l)
end

local function cursor(win)
  local c = api.nvim_win_get_cursor(win)
  local l = api.nvim_buf_get_lines(api.nvim_win_get_buf(win), c[1] - 1, c[1], false)[1] or ''
  local ok, u = pcall(vim.str_utfindex, l, c[2])
  return c[1] - 1, ok and u or c[2]
end

local function mark_lines(b, r)
  api.nvim_buf_clear_namespace(b, ns, 0, -1)
  if not r then return end
  local n = api.nvim_buf_line_count(b)
  local s = math.min(r.output.start.line, n - 1)
  local e = math.min(r.output['end'].line, n)
  for l = s, e - 1 do
    api.nvim_buf_set_extmark(b, ns, l, 0, { line_hl_group = 'TilelsLinked' })
  end
end

local function mark_source(src, r)
  api.nvim_buf_clear_namespace(src, ns, 0, -1)
  if not r then return end
  local s, e = r.source.start, r.source['end']
  api.nvim_buf_set_extmark(src, ns, s.line, byte_col(src, s.line, s.character), {
    end_row = e.line, end_col = byte_col(src, e.line, e.character), hl_group = 'TilelsLinked',
  })
end

-- Scrolls win so that line (0-based) is visible: at the top with top,
-- else centred when outside the window.
local function reveal(win, line, top)
  api.nvim_win_call(win, function()
    local l = line + 1
    if top then
      api.nvim_win_set_cursor(win, { l, 0 })
      vim.cmd('normal! zt')
    elseif l < vim.fn.line('w0') or l > vim.fn.line('w$') then
      api.nvim_win_set_cursor(win, { l, 0 })
      vim.cmd('normal! zz')
    end
  end)
end

local function call_only(r)
  if r and r.kind == 'call' then return r end
end

--- The source cursor moved: link its tile call with every visible view.
function M.from_source(src, do_reveal)
  local win = vim.fn.bufwinid(src)
  if win == -1 then return end
  local line, col = cursor(win)
  local shown
  for b, m in pairs(maps) do
    if not api.nvim_buf_is_valid(b) then
      maps[b] = nil
    elseif m.src == src then
      local r = call_only(M.at_source(m.ranges, line, col))
      mark_lines(b, r)
      local vw = vim.fn.bufwinid(b)
      if r and do_reveal and vw ~= -1 then reveal(vw, r.output.start.line, false) end
      shown = shown or r
    end
  end
  mark_source(src, shown)
end

--- The cursor moved in view b: link its line with the source call.
function M.from_view(b)
  local m = maps[b]
  local win = vim.fn.bufwinid(b)
  if not m or win == -1 or not api.nvim_buf_is_valid(m.src) then return end
  local r = call_only(M.at_line(m.ranges, api.nvim_win_get_cursor(win)[1] - 1))
  mark_lines(b, r)
  mark_source(m.src, r)
  local sw = vim.fn.bufwinid(m.src)
  if r and sw ~= -1 then reveal(sw, r.source.start.line, false) end
end

--- Asks the server for view b's map (after its text changed), through
--- request(client, method, params, handler, bufnr); open: the
--- view was just opened, scroll it to the kernel or call at the source
--- cursor. on_done(map) runs once the map is in.
function M.update(request, client, b, v, open, on_done)
  local u = M.view_uri(v.src, v.kind, v.kernel)
  if not u then return end
  request(client, 'tilels/outputRanges', { uri = u }, function(err, res)
    if err or not res or not api.nvim_buf_is_valid(b) then return end
    local ranges = {}
    for _, r in ipairs(res.ranges or {}) do
      r.output.start.line = r.output.start.line - M.STAMP
      r.output['end'].line = r.output['end'].line - M.STAMP
      if r.output.start.line >= 0 then table.insert(ranges, r) end
    end
    maps[b] = { src = v.src, ranges = ranges }
    if not api.nvim_buf_is_valid(v.src) then return end
    local sw, vw = vim.fn.bufwinid(v.src), vim.fn.bufwinid(b)
    if open and vw ~= -1 then
      local line, col = 0, 0
      if sw ~= -1 then line, col = cursor(sw) end
      local r = M.opening(ranges, line, col)
      if r then reveal(vw, r.output.start.line, true) end
    end
    M.from_source(v.src, false)
    if on_done then on_done(maps[b]) end
  end, v.src)
end

--- Follows the cursor of a source buffer (on attach).
function M.attach_source(src, group)
  api.nvim_create_autocmd({ 'CursorMoved', 'CursorMovedI' }, {
    group = group,
    buffer = src,
    callback = function() M.from_source(src, true) end,
  })
end

--- Follows the cursor of a view buffer (on creation).
function M.attach_view(b)
  api.nvim_create_autocmd('CursorMoved', {
    group = api.nvim_create_augroup('tilels_view_' .. b, { clear = true }),
    buffer = b,
    callback = function() M.from_view(b) end,
  })
end

return M
