-- The Neovim configuration of the documentation screenshots
-- (scripts/e2e/nvim-screens): the plugin as a user would set it up, K for
-- hover.
--   TILELS=<bin/tilels> PLUGIN=editors/nvim nvim -u scripts/e2e/nvim-screens.lua kernel.py
vim.opt.runtimepath:append(vim.env.PLUGIN)
vim.cmd("filetype plugin indent on")
vim.cmd("syntax on")
vim.o.termguicolors = true
vim.o.background = "dark"
vim.o.number = true
vim.o.signcolumn = "yes"
vim.o.laststatus = 2
vim.o.swapfile = false
vim.o.shada = ""
vim.o.splitright = true
vim.cmd("highlight NormalFloat guibg=#262a33 guifg=#d4d4d4")
-- Neovim's markdown syntax marks every "_" inside a word and every "->" of
-- the hover as an error (red); not helpful in a picture.
vim.cmd("highlight link markdownError NONE")
vim.cmd("runtime plugin/tilels.lua")
require("tilels").setup({
  cmd = { vim.env.TILELS },
  on_attach = function(_, bufnr)
    vim.keymap.set("n", "K", vim.lsp.buf.hover, { buffer = bufnr })
  end,
})
