-- contrib.lua: Neovim support for `.contrib` prompt-contributor manifests.
--
-- Copy this file to ~/.config/nvim/plugin/contrib.lua (loaded automatically),
-- or to ~/.config/nvim/lua/contrib.lua and `require('contrib')` it from
-- init.lua; either way it works the same, and loading it twice does nothing
-- the second time. It registers the `contrib` filetype, sets comment and
-- indent options and highlighting, and starts the language server
-- (`contrib lsp`) for contrib buffers.
--
-- Supported: Neovim 0.11+ needs nothing else; 0.9 and 0.10 need nvim-lspconfig
-- at tag v1.8.0 (see README.md). On 0.7 and 0.8 only steps 1 to 3 apply
-- (filetype, options, highlighting); they have no language server client
-- this file can use.
--
-- Options (set before this file is loaded):
--   vim.g.contrib_cmd = { '/path/to/contrib', 'lsp' }   -- default { 'contrib', 'lsp' }
--   vim.g.contrib_grammar = '/path/to/contrib/editors/tree-sitter-contrib'
--     -- the project's tree-sitter grammar, its parser built (see README.md)
--   vim.g.contrib_preview_session = 'session.toml'      -- for :ContribPreview
--   vim.g.contrib_sources = false
--     -- do not attach the server to Markdown and JSON buffers; by default it
--     -- is, to show `contrib check`'s diagnostics in other tools' files
--     -- (SKILL.md, plugin.json, mcp.json, hooks.json, …), and says nothing
--     -- about Markdown or JSON in no such format
--
-- :ContribPreview [SESSION] shows what the model is told for the manifest in
-- a split, refreshed as you type (Neovim 0.9+).

if vim.g.loaded_contrib then
  return { loaded = true }
end
vim.g.loaded_contrib = true

-- 1. Filetype detection ----------------------------------------------------------
-- Cursor's rules (`.mdc`) are Markdown with frontmatter.
vim.filetype.add({ extension = { contrib = 'contrib', mdc = 'markdown' } })
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

-- 2. The tree-sitter grammar (Neovim 0.9+) ---------------------------------------------
-- vim.g.contrib_grammar: the folder editors/tree-sitter-contrib of a checkout,
-- with its parser built as contrib.so there (see README.md).
local grammar_ready = nil

local function load_grammar()
  if grammar_ready ~= nil then
    return grammar_ready
  end
  grammar_ready = false
  local dir = vim.g.contrib_grammar
  if not dir or vim.fn.has('nvim-0.9') == 0 then
    return false
  end
  local parser = dir .. '/contrib.so'
  if vim.fn.filereadable(parser) == 0 then
    vim.notify('contrib.lua: build the grammar first: cc -shared -fPIC -O2 -I src src/parser.c -o contrib.so in '
      .. dir, vim.log.levels.WARN)
    return false
  end
  local ok = pcall(vim.treesitter.language.add, 'contrib', { path = parser })
  if not ok then
    return false
  end
  for _, name in ipairs({ 'highlights', 'indents', 'textobjects' }) do
    local file = io.open(dir .. '/queries/' .. name .. '.scm', 'r')
    if file then
      vim.treesitter.query.set('contrib', name, file:read('*a'))
      file:close()
    end
  end
  grammar_ready = true
  return true
end

--- Starts tree-sitter highlighting in `buf`; whether it could.
local function start_grammar(buf)
  return load_grammar() and pcall(vim.treesitter.start, buf, 'contrib')
end

--- Vim's `conf` syntax (# comments, one-line strings) for `buf`, unless
--- tree-sitter highlights it or a `syntax/contrib.vim` exists. Set once the
--- FileType event is over: Neovim's own FileType handler sets 'syntax' to
--- the filetype, and when this file is required from init.lua its handler
--- runs after ours (init.lua is read before syntax is enabled), which would
--- replace `conf` with a `contrib` syntax that does not exist.
local function fallback_syntax(buf)
  vim.schedule(function()
    if not vim.api.nvim_buf_is_valid(buf) or vim.bo[buf].filetype ~= 'contrib' then
      return
    end
    local highlighter = vim.treesitter and vim.treesitter.highlighter
    if highlighter and highlighter.active and highlighter.active[buf] then
      return
    end
    if #vim.api.nvim_get_runtime_file('syntax/contrib.vim', false) == 0 then
      vim.bo[buf].syntax = 'conf'
    end
  end)
end

-- 3. Buffer options and highlighting ------------------------------------------------
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
    -- The project's tree-sitter grammar when it is configured (0.9+), else
    -- Vim's `conf` syntax: # comments and one-line strings. Semantic tokens
    -- from the language server refine either (0.9+).
    if not start_grammar(args.buf) then
      fallback_syntax(args.buf)
    end
  end,
})

-- 4. Language server -----------------------------------------------------------------
local cmd = vim.g.contrib_cmd or { 'contrib', 'lsp' }
-- Manifests, and other tools' files the server checks in place.
local filetypes = { 'contrib' }
if vim.g.contrib_sources ~= false then
  filetypes = { 'contrib', 'markdown', 'json', 'jsonc' }
end

if vim.fn.has('nvim-0.11') == 1 then
  -- Neovim 0.11+: built-in configuration, no plugin needed.
  vim.lsp.config('contrib', {
    cmd = cmd,
    filetypes = filetypes,
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
  end
  local configs = ok and require('lspconfig.configs')
  if configs and not configs.contrib then
    configs.contrib = {
      default_config = {
        cmd = cmd,
        filetypes = filetypes,
        root_dir = lspconfig.util.root_pattern('contrib.toml', '.git'),
        single_file_support = true,
        settings = {},
      },
      docs = {
        description = 'Language server for .contrib prompt-contributor manifests (`contrib lsp`).',
      },
    }
  end
  if configs then
    lspconfig.contrib.setup({})
  end
end

-- 5. :ContribPreview ---------------------------------------------------------------
-- What the model is told for the manifest in the current buffer, from the
-- language server's `contrib/preview` request, in a split beside it;
-- refreshed as you type while the split is open. `:ContribPreview PATH`
-- composes for that session.toml (relative to the manifest's folder);
-- otherwise vim.g.contrib_preview_session, else the example session.
if vim.fn.has('nvim-0.9') == 1 then
  local preview = { buf = nil, source = nil, session = nil, timer = nil }

  local function client_for(source)
    local get = vim.lsp.get_clients or vim.lsp.get_active_clients
    return get({ bufnr = source, name = 'contrib' })[1]
  end

  --- Sends `method` to `client`: `client:request()` from 0.11, where the
  --- client's methods take it as `self` (the dot form is deprecated, and
  --- removed in 0.13); `client.request()`, a closure over the client,
  --- before.
  local function request(client, method, params, handler, buf)
    if vim.fn.has('nvim-0.11') == 1 then
      return client:request(method, params, handler, buf)
    end
    return client.request(method, params, handler, buf)
  end

  local function refresh()
    local source = preview.source
    if not (source and vim.api.nvim_buf_is_valid(source)) then return end
    if not (preview.buf and vim.api.nvim_buf_is_valid(preview.buf)) then return end
    local client = client_for(source)
    if not client then
      vim.notify('ContribPreview: the contrib language server is not attached to this buffer', vim.log.levels.WARN)
      return
    end
    local params = { textDocument = vim.lsp.util.make_text_document_params(source), session = preview.session }
    request(client, 'contrib/preview', params, function(err, answer)
      if not (preview.buf and vim.api.nvim_buf_is_valid(preview.buf)) then return end
      local text
      if err then
        text = 'The preview failed: ' .. (err.message or vim.inspect(err))
      elseif answer == nil or answer == vim.NIL then
        text = 'The language server has not opened this manifest yet.'
      elseif answer.problem then
        text = answer.problem
      else
        text = answer.text
      end
      vim.bo[preview.buf].modifiable = true
      vim.api.nvim_buf_set_lines(preview.buf, 0, -1, false, vim.split(text, '\n', { plain = true }))
      vim.bo[preview.buf].modifiable = false
    end, source)
  end

  vim.api.nvim_create_user_command('ContribPreview', function(opts)
    local source = vim.api.nvim_get_current_buf()
    if vim.bo[source].filetype ~= 'contrib' then
      vim.notify('ContribPreview: open a .contrib manifest first', vim.log.levels.WARN)
      return
    end
    preview.source = source
    preview.session = (opts.args ~= '' and opts.args) or vim.g.contrib_preview_session
    if not (preview.buf and vim.api.nvim_buf_is_valid(preview.buf)) then
      preview.buf = vim.api.nvim_create_buf(false, true)
      vim.bo[preview.buf].bufhidden = 'wipe'
      vim.bo[preview.buf].filetype = 'markdown'
      vim.api.nvim_buf_set_name(preview.buf, 'contrib://what-the-model-is-told')
      vim.cmd('vsplit')
      vim.api.nvim_win_set_buf(0, preview.buf)
      vim.cmd('wincmd p')
      vim.api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI' }, {
        group = vim.api.nvim_create_augroup('contrib_preview', { clear = true }),
        buffer = source,
        callback = function()
          if preview.timer then preview.timer:stop() end
          preview.timer = vim.defer_fn(refresh, 300)
        end,
      })
    end
    refresh()
  end, { nargs = '?', complete = 'file', desc = 'Show what the model is told for this manifest' })
end

-- What `require('contrib')` returns: nothing to call, everything above is
-- already set up.
return { loaded = true }
