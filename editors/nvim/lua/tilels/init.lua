-- tilels for Neovim: starts the tilels language server for Python files that
-- import the TIRx DSL and shows what it lowers them to. Neovim 0.7 or newer.
--
--   require('tilels').setup({
--     cmd = { 'tilels' },                  -- the server (tilels >= 0.1.0)
--     settings = { arch = 'sm_90a' },      -- section "tilels": arch, inlayHints, inlayHintStyle,
--                                          -- hoverFormat, bind, maxCases, extraPaths
--     on_attach = function(client, bufnr) end,
--   })
--
-- On Neovim 0.11+ the server is declared with vim.lsp.config('tilels', ...)
-- and vim.lsp.enable('tilels'); on 0.7-0.10 an autocmd starts one client
-- per project root with vim.lsp.start_client and attaches the buffers to
-- it. Either way only buffers whose text imports the TIRx DSL attach. All
-- analysis is the server's: this file is glue between its commands
-- (tilels.lower, tilels.writeCUDA, tilels.pickCase, tilels.selectCase) and
-- Neovim's windows. See :help tilels.
local M = {}

local api = vim.api
local uv = vim.uv or vim.loop
local outmap = require('tilels.outmap')

-- The oldest server whose commands this plugin speaks.
M.min_server_version = '0.1.0'

local defaults = {
  cmd = { 'tilels' },
  settings = {},
  on_attach = nil,
  capabilities = nil,
  handlers = nil,
  filetypes = { 'python' },
  root_markers = { 'pyproject.toml', 'setup.py', 'setup.cfg', '.git' },
  -- Lowered views follow edits (debounced) and writes of their source.
  live = true,
  debounce_ms = 300,
  -- Where :TilelsLowered opens its view: 'vertical' or 'horizontal'.
  split = 'vertical',
  -- Request code lenses (kernel cases, "show lowered CUDA") on enter, save
  -- and leaving insert mode.
  codelens = true,
  -- Turn on the server's inlay hints where Neovim shows them (0.10+).
  inlay_hints = true,
  -- nil: vim.lsp.config on Neovim 0.11+, start_client before. false forces
  -- start_client.
  use_lsp_config = nil,
}

M.config = vim.deepcopy(defaults)

local function notify(msg, level)
  vim.notify('tilels: ' .. msg, level or vim.log.levels.INFO)
end

local function has(v) return vim.fn.has('nvim-' .. v) == 1 end

-- Client methods became colon calls in 0.11 (the dot form is deprecated).
local function request(client, method, params, handler, bufnr)
  if has('0.11') then return client:request(method, params, handler, bufnr) end
  return client.request(method, params, handler, bufnr)
end

local function dict(t)
  if type(t) ~= 'table' or next(t) == nil then return vim.empty_dict() end
  return t
end

-- The settings as the server reads them (section "tilels"): an empty table
-- must go out as a JSON object, never as [].
-- Before 0.10 Neovim advertises Markdown hovers but shows their tables
-- raw: unless the user chose a hoverFormat, ask the server for plain text
-- (aligned columns).
local function server_settings()
  local s = vim.deepcopy(M.config.settings or {})
  if s.tilels then s = s.tilels end
  if s.bind ~= nil then s.bind = dict(s.bind) end
  if s.hoverFormat == nil and not has('0.10') then s.hoverFormat = 'plaintext' end
  return dict(s)
end

---------------------------------------------------------------------------
-- Which buffers attach.

local function imports_tirx_line(l)
  return l:find('^%s*import%s+tvm%.tirx%f[^%w_]') ~= nil
    or l:find('^%s*import%s+tvm%.script%.tirx%f[^%w_]') ~= nil
    or l:find('^%s*from%s+tvm%.tirx%f[^%w_]') ~= nil
    or l:find('^%s*from%s+tvm%.script%.tirx%f[^%w_]') ~= nil
end

--- Whether the buffer's text imports the TIRx DSL:
--- `from tvm.script import tirx`, `from tvm.script.tirx import ...`,
--- `import tvm.tirx`, `from tvm.tirx... import ...`.
function M.imports_tirx(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  if not api.nvim_buf_is_loaded(bufnr) then return false end
  local n = math.min(api.nvim_buf_line_count(bufnr), 5000)
  local lines = api.nvim_buf_get_lines(bufnr, 0, n, false)
  local i = 1
  while i <= #lines do
    local l = lines[i]
    if imports_tirx_line(l) then return true end
    local names = l:match('^%s*from%s+tvm%.script%s+import%s+(.*)$')
    if names then
      -- `from tvm.script import (ir as I,\n tirx as T)`
      if names:find('%(') then
        while not names:find('%)') and i < #lines do
          i = i + 1
          names = names .. ' ' .. lines[i]
        end
      end
      names = names:gsub('#.*', '')
      if names:find('%f[%w_]tirx%f[^%w_]') then return true end
    end
    i = i + 1
  end
  return false
end

local function find_root(fname)
  local dir = vim.fn.fnamemodify(fname, ':p:h')
  local cur = dir
  while true do
    for _, m in ipairs(M.config.root_markers) do
      if uv.fs_stat(cur .. '/' .. m) then return cur end
    end
    local parent = vim.fn.fnamemodify(cur, ':h')
    if parent == cur then return dir end
    cur = parent
  end
end

---------------------------------------------------------------------------
-- The server binary.

local function parse_version(s)
  local a, b, c = (s or ''):match('(%d+)%.(%d+)%.(%d+)')
  if a then return { tonumber(a), tonumber(b), tonumber(c) } end
end

local function version_less(x, y)
  for i = 1, 3 do
    if x[i] ~= y[i] then return x[i] < y[i] end
  end
  return false
end

local checked = {}

--- Runs `tilels --version` once per command and says clearly what is
--- wrong when the server is missing or too old. Returns the version string
--- or nil.
function M.check_server()
  local cmd = M.config.cmd
  if type(cmd) ~= 'table' or type(cmd[1]) ~= 'string' then return 'unknown' end
  local key = table.concat(cmd, '\0')
  if checked[key] ~= nil then return checked[key] or nil end
  checked[key] = false
  local exe = cmd[1]
  if vim.fn.executable(exe) ~= 1 then
    notify(string.format("cannot start the language server: '%s' is not an executable. "
      .. "Build it (go build -o bin/tilels ./cmd/tilels in the tilels repository) and put it on "
      .. "PATH, or give its path: require('tilels').setup({ cmd = { '/path/to/tilels' } })", exe),
      vim.log.levels.ERROR)
    return nil
  end
  local out = vim.fn.system({ exe, '--version' })
  local v = out:match('^tilels%s+v?(%d+%.%d+%.%d+)')
  if vim.v.shell_error ~= 0 or not v then
    notify(string.format("'%s --version' printed %q: this plugin needs tilels %s or newer",
      exe, vim.trim(out), M.min_server_version), vim.log.levels.ERROR)
    return nil
  end
  if version_less(parse_version(v), parse_version(M.min_server_version)) then
    notify(string.format('%s is tilels %s; this plugin needs %s or newer: rebuild it',
      exe, v, M.min_server_version), vim.log.levels.ERROR)
    return nil
  end
  checked[key] = v
  return v
end

---------------------------------------------------------------------------
-- Clients.

--- The tilels client attached to a buffer (the current one when nil or 0).
function M.client(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr, name = 'tilels' })[1]
  end
  for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if c.name == 'tilels' then return c end
  end
end

local function capabilities()
  local caps = M.config.capabilities or vim.lsp.protocol.make_client_capabilities()
  caps = vim.deepcopy(caps)
  -- Without CreateFile the server writes <name>.cu itself (atomically),
  -- instead of asking Neovim to create it and insert the text into a
  -- buffer that the user would still have to save (and that would get the
  -- text twice if it was loaded already).
  local we = caps.workspace and caps.workspace.workspaceEdit
  if we and we.resourceOperations then
    we.resourceOperations = vim.tbl_filter(function(k) return k ~= 'create' end, we.resourceOperations)
  end
  return caps
end

local on_attach -- below
local client_commands -- below

local function client_config(root)
  local s = server_settings()
  return {
    name = 'tilels',
    cmd = M.config.cmd,
    root_dir = root,
    workspace_folders = root and { { uri = vim.uri_from_fname(root), name = root } } or nil,
    settings = { tilels = s },
    init_options = s,
    capabilities = capabilities(),
    handlers = M.config.handlers,
    commands = client_commands,
    on_attach = on_attach,
  }
end

local roots = {} -- root directory -> client id (start_client path)

local function attachable(bufnr)
  if not api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= '' then return false end
  if not vim.tbl_contains(M.config.filetypes, vim.bo[bufnr].filetype) then return false end
  if api.nvim_buf_get_name(bufnr) == '' then return false end
  return M.imports_tirx(bufnr)
end

local using_lsp_config = false

--- Attaches the buffer to its project's tilels client (starting it) when
--- it imports the TIRx DSL. Returns the client id or nil.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  local c = M.client(bufnr)
  if c then return c.id end
  if not attachable(bufnr) or not M.check_server() then return nil end
  local root = find_root(api.nvim_buf_get_name(bufnr))
  if using_lsp_config then
    -- What vim.lsp.enable does on FileType, for a buffer that gained its
    -- TIRx import later.
    local conf = vim.deepcopy(vim.lsp.config.tilels)
    conf.name = 'tilels'
    conf.root_dir = root
    return vim.lsp.start(conf, { bufnr = bufnr })
  end
  local id = roots[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or (client.is_stopped and client.is_stopped()) then
    id = vim.lsp.start_client(client_config(root))
    roots[root] = id
  end
  if not id then return nil end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

---------------------------------------------------------------------------
-- Lowered views: scratch buffers named tilels://<source>.cu (or .tirx).

local views = {} -- view bufnr -> { src = bufnr, kind = 'cuda'|'tirx', kernel = name|nil }

local function view_name(src, kind, kernel)
  local name = 'tilels://' .. api.nvim_buf_get_name(src) .. (kind == 'tirx' and '.tirx' or '.cu')
  if kernel and kernel ~= '' then name = name .. '?kernel=' .. kernel end
  return name
end

local function view_buffer(src, kind, kernel)
  local name = view_name(src, kind, kernel)
  for b, v in pairs(views) do
    if api.nvim_buf_is_valid(b) and api.nvim_buf_get_name(b) == name then
      v.src, v.kind, v.kernel = src, kind, kernel
      return b
    end
    if not api.nvim_buf_is_valid(b) then views[b] = nil end
  end
  local b = api.nvim_create_buf(false, true)
  api.nvim_buf_set_name(b, name)
  vim.bo[b].buftype = 'nofile'
  vim.bo[b].bufhidden = 'hide'
  vim.bo[b].swapfile = false
  vim.bo[b].modifiable = false
  vim.bo[b].filetype = kind == 'tirx' and 'python' or 'cuda'
  views[b] = { src = src, kind = kind, kernel = kernel }
  outmap.attach_view(b)
  return b
end

local function set_text(b, lines)
  vim.fn.bufload(b)
  vim.bo[b].modifiable = true
  api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.bo[b].modifiable = false
  vim.bo[b].modified = false
end

local function first_line(s)
  return (tostring(s or ''):gsub('\n.*', ''))
end

-- The lowered text of a tilels.lower result, with one line naming the case
-- shown of each kernel def that has several (as the server's own views do).
local function lowered_lines(res, kind)
  local text = (kind == 'tirx' and res.tirx or res.cuda) or ''
  local head = {}
  local comment = kind == 'tirx' and '# ' or '// '
  for _, c in ipairs(res.cases or {}) do
    table.insert(head, string.format('%stilels: %s case %d/%d: %s', comment, c.kernel, c.case, c.count, c.label))
  end
  local lines = vim.split(text, '\n', { plain = true })
  if lines[#lines] == '' then table.remove(lines) end
  for i = #head, 1, -1 do table.insert(lines, 1, head[i]) end
  return lines
end

local function show(b)
  local win = vim.fn.bufwinid(b)
  if win ~= -1 then return win end
  local from = api.nvim_get_current_win()
  vim.cmd(M.config.split == 'horizontal' and 'belowright split' or 'belowright vsplit')
  win = api.nvim_get_current_win()
  api.nvim_win_set_buf(win, b)
  api.nvim_set_current_win(from)
  return win
end

-- Asks the server for the lowered text of src and puts it in view b.
-- open: show the view in a split when no window shows it.
local function fill(b, open, on_done)
  local v = views[b]
  local client = v and M.client(v.src)
  if not client then
    if open then notify('the buffer is not attached to the tilels server', vim.log.levels.WARN) end
    return
  end
  local args = { vim.uri_from_bufnr(v.src) }
  if v.kernel and v.kernel ~= '' then table.insert(args, v.kernel) end
  request(client, 'workspace/executeCommand', { command = 'tilels.lower', arguments = args }, function(err, res)
    if not api.nvim_buf_is_valid(b) then return end
    if err then
      local msg = first_line(err.message)
      if open then
        notify('lowering failed: ' .. msg, vim.log.levels.WARN)
      end
      -- Keep the last good text, say that it is stale.
      local lines = api.nvim_buf_get_lines(b, 0, -1, false)
      local comment = v.kind == 'tirx' and '# ' or '// '
      local stale = comment .. 'tilels: not refreshed: ' .. msg
      if lines[1] and lines[1]:find('tilels: not refreshed: ', 1, true) then
        lines[1] = stale
      else
        table.insert(lines, 1, stale)
      end
      set_text(b, lines)
    else
      set_text(b, lowered_lines(res or {}, v.kind))
    end
    if open then show(b) end
    -- The source <-> view map (outmap.lua), for the text just set.
    if not err then outmap.update(request, client, b, v, open) end
    if on_done then on_done(b, err) end
  end, v.src)
end

local function source_of(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  local v = views[bufnr]
  if v and api.nvim_buf_is_valid(v.src) then return v.src, v end
  return bufnr
end

--- Shows what the buffer lowers to in a split (`:TilelsLowered`), through
--- the server's tilels.lower. opts: bufnr, kind ('cuda' or 'tirx'),
--- kernel (one kernel's output), on_done(viewbuf, err).
function M.lowered(opts)
  opts = opts or {}
  local src, v = source_of(opts.bufnr)
  local kind = opts.kind or (v and v.kind) or 'cuda'
  local kernel = opts.kernel or (v and v.kernel)
  if not M.client(src) then
    notify('this buffer has no tilels server (it must be a Python file that imports the TIRx DSL)',
      vim.log.levels.WARN)
    return
  end
  local b = view_buffer(src, kind, kernel)
  fill(b, true, opts.on_done)
  return b
end

--- Refreshes every lowered view of src that a window shows.
function M.refresh_views(src)
  for b, v in pairs(views) do
    if not api.nvim_buf_is_valid(b) then
      views[b] = nil
    elseif v.src == src and vim.fn.bufwinid(b) ~= -1 then
      fill(b, false)
    end
  end
end

--- The source <-> view map of view b (outmap.lua): { src, ranges } with
--- output lines of the view, 0-based; nil before the server answered.
function M.output_map(b) return outmap.map(b) end

--- The lowered view buffers of src (for scripts and tests).
function M.views(src)
  local out = {}
  for b, v in pairs(views) do
    if api.nvim_buf_is_valid(b) and v.src == src then table.insert(out, b) end
  end
  return out
end

---------------------------------------------------------------------------
-- Writing CUDA, picking cases.

-- A loaded buffer of a file the server just wrote shows the new text,
-- unless it has changes of its own.
local function reload(fname)
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(b) and api.nvim_buf_get_name(b) == fname then
      if vim.bo[b].modified then
        notify(vim.fn.fnamemodify(fname, ':t') .. ' has unsaved changes in Neovim; the file on disk was replaced',
          vim.log.levels.WARN)
      else
        api.nvim_buf_call(b, function() vim.cmd('silent edit!') end)
      end
    end
  end
end

--- Writes the lowered CUDA beside the source (`:TilelsWriteCUDA`), through
--- the server's tilels.writeCUDA. opts: bufnr, kernel, on_done(path, err).
function M.write_cuda(opts)
  opts = opts or {}
  local src = source_of(opts.bufnr)
  local client = M.client(src)
  if not client then
    notify('this buffer has no tilels server', vim.log.levels.WARN)
    return
  end
  local args = { vim.uri_from_bufnr(src) }
  if opts.kernel and opts.kernel ~= '' then table.insert(args, opts.kernel) end
  request(client, 'workspace/executeCommand', { command = 'tilels.writeCUDA', arguments = args }, function(err, res)
    if err or not (res and res.uri) then
      notify('writing CUDA failed: ' .. first_line(err and err.message or 'no answer'), vim.log.levels.ERROR)
      if opts.on_done then opts.on_done(nil, err) end
      return
    end
    local path = vim.uri_to_fname(res.uri)
    reload(path)
    notify('wrote ' .. vim.fn.fnamemodify(path, ':~:.'))
    if opts.on_done then opts.on_done(path) end
  end, src)
end

-- The LSP position (UTF-16 column) of the cursor.
local function cursor_position()
  local row, col = unpack(api.nvim_win_get_cursor(0))
  local line = api.nvim_get_current_line():sub(1, col)
  local units = 0
  for ch in line:gmatch('[%z\1-\127\194-\244][\128-\191]*') do
    units = units + ((ch:byte() >= 240) and 2 or 1)
  end
  return { line = row - 1, character = units }
end

local function refresh_lenses(bufnr)
  if not M.config.codelens or not api.nvim_buf_is_valid(bufnr) then return end
  if has('0.10') then
    pcall(vim.lsp.codelens.refresh, { bufnr = bufnr })
  elseif bufnr == api.nvim_get_current_buf() then
    pcall(vim.lsp.codelens.refresh)
  end
end

local function case_selected(src, res)
  notify(string.format('%s case %d/%d: %s', res.kernel, res.case, res.count, res.label))
  refresh_lenses(src)
  M.refresh_views(src)
end

local function select_case(client, src, kernel, index, on_done)
  local args = { vim.uri_from_bufnr(src), kernel }
  if index then table.insert(args, index) end
  request(client, 'workspace/executeCommand', { command = 'tilels.selectCase', arguments = args }, function(err, res)
    if err then
      notify('selecting a case failed: ' .. first_line(err.message), vim.log.levels.WARN)
    else
      case_selected(src, res)
    end
    if on_done then on_done(res, err) end
  end, src)
end

--- Picks the case of the kernel def under the cursor (`:TilelsCase`):
--- tilels.pickCase lists them, vim.ui.select shows them, tilels.selectCase
--- selects the one chosen. opts: bufnr, kernel (a name instead of the
--- cursor's def), case (select this index without asking), on_done(res, err).
function M.pick_case(opts)
  opts = opts or {}
  local src = source_of(opts.bufnr)
  local client = M.client(src)
  if not client then
    notify('this buffer has no tilels server', vim.log.levels.WARN)
    return
  end
  local kernel = opts.kernel
  if not kernel or kernel == '' then
    if src ~= api.nvim_get_current_buf() then
      notify('give the kernel name, or run it in the source with the cursor in the kernel def',
        vim.log.levels.WARN)
      return
    end
    kernel = cursor_position()
  end
  if opts.case then
    return select_case(client, src, kernel, opts.case, opts.on_done)
  end
  local args = { vim.uri_from_bufnr(src), kernel }
  request(client, 'workspace/executeCommand', { command = 'tilels.pickCase', arguments = args }, function(err, res)
    if err then
      notify('no cases here: ' .. first_line(err.message)
        .. ' (put the cursor inside a kernel def, or give its name: :TilelsCase NAME)', vim.log.levels.WARN)
      if opts.on_done then opts.on_done(nil, err) end
      return
    end
    local n = #res.cases
    vim.ui.select(res.cases, {
      prompt = string.format('tilels: case of %s', res.kernel),
      format_item = function(c)
        local s = string.format('%d/%d %s', c.case, n, c.label)
        if c.id and c.id ~= '' then s = s .. '  [' .. c.id .. ']' end
        if c.case == res.selected then s = s .. '  (selected)' end
        return s
      end,
    }, function(choice)
      if not choice then
        if opts.on_done then opts.on_done(nil, nil) end
        return
      end
      select_case(client, src, res.kernel, choice.case, opts.on_done)
    end)
  end, src)
end

--- What :TilelsInfo prints.
function M.info()
  local out = { 'tilels plugin: Neovim ' .. tostring(vim.version().major) .. '.' .. tostring(vim.version().minor)
    .. '.' .. tostring(vim.version().patch) .. ', ' .. (using_lsp_config and 'vim.lsp.config' or 'vim.lsp.start_client') }
  table.insert(out, 'server: ' .. table.concat(type(M.config.cmd) == 'table' and M.config.cmd or { '?' }, ' ')
    .. ' (' .. (M.check_server() or 'not usable') .. ')')
  table.insert(out, 'settings: ' .. vim.fn.json_encode(server_settings()))
  local b = source_of(0)
  local c = M.client(b)
  table.insert(out, 'this buffer: ' .. (c and ('client ' .. c.id .. ', root ' .. tostring(c.config.root_dir))
    or (M.imports_tirx(b) and 'imports TIRx, not attached' or 'does not import the TIRx DSL')))
  return table.concat(out, '\n')
end

--- Sends new settings to every running tilels client
--- (workspace/didChangeConfiguration; the server then pulls them).
function M.set_settings(settings)
  M.config.settings = settings or {}
  local s = server_settings()
  if using_lsp_config then
    -- Clients started from now on.
    vim.lsp.config('tilels', { settings = { tilels = s }, init_options = s })
  end
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ name = 'tilels' }) or vim.lsp.get_active_clients()
  for _, c in pairs(clients) do
    if c.name == 'tilels' then
      -- workspace/configuration reads client.settings on 0.11+,
      -- client.config.settings before.
      c.config.settings = { tilels = s }
      if c.settings then c.settings = { tilels = s } end
      if has('0.11') then
        c:notify('workspace/didChangeConfiguration', { settings = { tilels = s } })
      else
        c.notify('workspace/didChangeConfiguration', { settings = { tilels = s } })
      end
    end
  end
end

---------------------------------------------------------------------------
-- Attach-time setup of a buffer.

local timers = {}

local function stop_timer(src)
  local t = timers[src]
  if t then
    t:stop()
    if not t:is_closing() then t:close() end
    timers[src] = nil
  end
end

local function debounced_refresh(src)
  if not M.config.live or #M.views(src) == 0 then return end
  local t = timers[src]
  if not t then
    t = uv.new_timer()
    timers[src] = t
  end
  t:stop()
  t:start(M.config.debounce_ms, 0, vim.schedule_wrap(function()
    if api.nvim_buf_is_valid(src) then M.refresh_views(src) end
  end))
end

local watching = {} -- source bufnr -> true while nvim_buf_attach watches it

on_attach = function(client, bufnr)
  local group = api.nvim_create_augroup('tilels_buffer_' .. bufnr, { clear = true })
  -- Every change of the text (typed, put, or made through the API) moves
  -- the refresh of the open views on.
  if not watching[bufnr] then
    watching[bufnr] = api.nvim_buf_attach(bufnr, false, {
      on_lines = function()
        if not watching[bufnr] then return true end
        debounced_refresh(bufnr)
      end,
      on_reload = function() debounced_refresh(bufnr) end,
      on_detach = function() watching[bufnr] = nil end,
    }) or nil
  end
  if M.config.codelens then
    api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'BufWritePost' }, {
      group = group,
      buffer = bufnr,
      callback = function() refresh_lenses(bufnr) end,
    })
    refresh_lenses(bufnr)
  end
  outmap.attach_source(bufnr, group)
  api.nvim_create_autocmd({ 'BufWipeout', 'BufUnload' }, {
    group = group,
    buffer = bufnr,
    callback = function()
      stop_timer(bufnr)
      watching[bufnr] = nil
    end,
  })
  if M.config.inlay_hints and vim.lsp.inlay_hint and server_settings().inlayHints ~= false then
    pcall(vim.lsp.inlay_hint.enable, true, { bufnr = bufnr })
  end
  -- Completion with <C-x><C-o> where no completion plugin set an
  -- omnifunc (Neovim 0.8+ sets this one itself on attach; 0.7 does not).
  if vim.bo[bufnr].omnifunc == '' then vim.bo[bufnr].omnifunc = 'v:lua.vim.lsp.omnifunc' end
  if M.config.on_attach then M.config.on_attach(client, bufnr) end
end

-- Commands of the server's code lenses and code actions, handled here: the
-- lowered view opens in a split (Neovim cannot show the server's
-- tilels-lowered: documents), a written .cu file is reloaded, and a case
-- selection refreshes the lenses and views.
client_commands = {
  ['tilels.showLowered'] = function(command, ctx)
    local args = command.arguments or {}
    local src = args[1] and vim.uri_to_bufnr(args[1]) or ctx.bufnr
    M.lowered({ bufnr = src, kind = 'cuda', kernel = args[2] })
  end,
  -- The code action "Write lowered CUDA to <name>.cu": written by the
  -- server, then reloaded and reported as :TilelsWriteCUDA does.
  ['tilels.writeCUDA'] = function(command, ctx)
    local args = command.arguments or {}
    local src = args[1] and vim.uri_to_bufnr(args[1]) or ctx.bufnr
    M.write_cuda({ bufnr = src, kernel = args[2] })
  end,
  ['tilels.selectCase'] = function(command, ctx)
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    local args = command.arguments or {}
    local src = args[1] and vim.uri_to_bufnr(args[1]) or ctx.bufnr
    if client then select_case(client, src, args[2], args[3]) end
  end,
}

---------------------------------------------------------------------------

--- Configures the plugin and starts attaching TIRx buffers. Calling it
--- again replaces the configuration (running clients keep theirs).
function M.setup(opts)
  if not has('0.7') then
    vim.notify('tilels: Neovim 0.7 or newer is required', vim.log.levels.ERROR)
    return
  end
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  if opts and opts.settings then M.config.settings = opts.settings end
  checked = {}
  local use = M.config.use_lsp_config
  if use == nil then use = has('0.11') and type(vim.lsp.config) == 'table' and vim.lsp.enable ~= nil end
  using_lsp_config = use and true or false

  local group = api.nvim_create_augroup('tilels', { clear = true })
  if using_lsp_config then
    local conf = client_config(nil)
    conf.name = nil
    conf.root_dir = function(bufnr, on_dir)
      if attachable(bufnr) and M.check_server() then
        on_dir(find_root(api.nvim_buf_get_name(bufnr)))
      end
    end
    conf.workspace_folders = nil
    conf.filetypes = M.config.filetypes
    vim.lsp.config('tilels', conf)
    vim.lsp.enable('tilels')
    -- vim.lsp.enable skips a cmd that is not executable without a word:
    -- say why TIRx buffers get no server.
    api.nvim_create_autocmd('FileType', {
      group = group,
      pattern = M.config.filetypes,
      callback = function(ev)
        if attachable(ev.buf) then M.check_server() end
      end,
    })
  else
    api.nvim_create_autocmd('FileType', {
      group = group,
      pattern = M.config.filetypes,
      callback = function(ev) M.attach(ev.buf) end,
    })
  end
  -- A file that gains its TIRx import attaches when it is written.
  api.nvim_create_autocmd('BufWritePost', {
    group = group,
    callback = function(ev)
      if not M.client(ev.buf) and attachable(ev.buf) then M.attach(ev.buf) end
    end,
  })
  -- Buffers already open when setup runs.
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(b) and attachable(b) then M.attach(b) end
  end
end

return M
