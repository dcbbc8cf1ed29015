-- User commands of the tilels plugin (:help tilels). The server starts only
-- after require('tilels').setup().
if vim.g.loaded_tilels then return end
vim.g.loaded_tilels = true
if vim.fn.has('nvim-0.7') ~= 1 then
  vim.notify('tilels: Neovim 0.7 or newer is required', vim.log.levels.ERROR)
  return
end

local command = vim.api.nvim_create_user_command

-- :TilelsLowered [cuda|tirx] [KERNEL]
command('TilelsLowered', function(o)
  local kind, kernel = 'cuda', nil
  for _, a in ipairs(o.fargs) do
    if a == 'cuda' or a == 'tirx' then kind = a else kernel = a end
  end
  require('tilels').lowered({ kind = kind, kernel = kernel })
end, {
  nargs = '*',
  desc = 'tilels: show the lowered CUDA (or TIRx) of this file in a split',
  complete = function(lead)
    return vim.tbl_filter(function(s) return s:sub(1, #lead) == lead end, { 'cuda', 'tirx' })
  end,
})

-- :TilelsWriteCUDA [KERNEL]
command('TilelsWriteCUDA', function(o)
  require('tilels').write_cuda({ kernel = o.fargs[1] })
end, { nargs = '?', desc = 'tilels: write the lowered CUDA to <name>.cu beside this file' })

-- :TilelsCase [KERNEL] [N]: pick the case of the kernel def under the cursor
-- (or of KERNEL), or select case N without asking.
command('TilelsCase', function(o)
  local n, kernel
  for _, a in ipairs(o.fargs) do
    if tonumber(a) then n = tonumber(a) else kernel = a end
  end
  require('tilels').pick_case({ case = n, kernel = kernel })
end, { nargs = '*', desc = 'tilels: pick the case of the kernel def under the cursor' })

command('TilelsInfo', function()
  print(require('tilels').info())
end, { nargs = 0, desc = 'tilels: the server, its version and this buffer\'s client' })
