-- contrib.lua: Neovim support for `.contrib` prompt-contributor manifests.
--
-- Copy this file to ~/.config/nvim/plugin/contrib.lua (loaded automatically), or
-- anywhere on your 'runtimepath' and `require('contrib')` it from init.lua.
-- It registers the `contrib` filetype, sets comment and indent options, and
-- starts the language server (`contrib lsp`) for contrib buffers.
--
-- Supported: Neovim 0.11+ needs nothing else; 0.9 and 0.10 need nvim-lspconfig
-- at tag v1.8.0 (see README.md). On 0.7 and 0.8 only steps 1 and 2 apply.
--
-- Options (set before this file is loaded):
--   vim.g.contrib_cmd = { '/path/to/contrib', 'lsp' }   -- default { 'contrib', 'lsp' }

-- 1. Filetype detection ----------------------------------------------------------
vim.filetype.add({ extension = { contrib = 'contrib' } })
if vim.fn.has('nvim-0.8') == 0 then
  -- Neovim 0.7 ignores vim.filetype.add() unless g:do_filetype_lua is set, and
  -- its legacy detection calls any file starting with `#` "conf".
  vim.api.nvim_create_autocmd({ 'BufRead', 'BufNewFile' }, {
    pattern = '*.contrib',
    callback = function(args)
      vim.bo[args.buf].filetype = 'contrib'
    end,
  })
end

-- 2. Buffer options ----------------------------------------------------------------
vim.api.nvim_create_autocmd('FileType', {
  group = vim.api.nvim_create_augroup('contrib_ftplugin', { clear = true }),
  pattern = 'contrib',
  callback = function(args)
    local bo = vim.bo[args.buf]
    bo.commentstring = '# %s' -- used by `gc` (built-in commenting since 0.10)
    bo.comments = ':#'
    bo.expandtab = true
    bo.shiftwidth = 4
    bo.softtabstop = 4
    bo.tabstop = 4
    -- There is no tree-sitter grammar or Vim syntax file for contrib yet. Until
    -- there is, borrow the `conf` syntax: # comments and one-line strings.
    if #vim.api.nvim_get_runtime_file('syntax/contrib.vim', false) == 0 then
      bo.syntax = 'conf'
    end
  end,
})

-- 3. Language server -----------------------------------------------------------------
local cmd = vim.g.contrib_cmd or { 'contrib', 'lsp' }

if vim.fn.has('nvim-0.11') == 1 then
  -- Neovim 0.11+: built-in configuration, no plugin needed.
  vim.lsp.config('contrib', {
    cmd = cmd,
    filetypes = { 'contrib' },
    root_markers = { 'contrib.toml', '.git' },
  })
  vim.lsp.enable('contrib')
elseif vim.fn.has('nvim-0.9') == 0 then
  vim.notify('contrib.lua: the contrib language server needs Neovim 0.9 or newer', vim.log.levels.WARN)
else
  -- Neovim 0.9 and 0.10: register a custom server with nvim-lspconfig (tag v1.8.0).
  local ok, lspconfig = pcall(require, 'lspconfig')
  if not ok then
    vim.notify('contrib.lua: Neovim 0.9 and 0.10 need nvim-lspconfig (tag v1.8.0) for the contrib language server',
      vim.log.levels.WARN)
    return
  end
  local configs = require('lspconfig.configs')
  if not configs.contrib then
    configs.contrib = {
      default_config = {
        cmd = cmd,
        filetypes = { 'contrib' },
        root_dir = lspconfig.util.root_pattern('contrib.toml', '.git'),
        single_file_support = true,
        settings = {},
      },
      docs = {
        description = 'Language server for .contrib prompt-contributor manifests (`contrib lsp`).',
      },
    }
  end
  lspconfig.contrib.setup({})
end
