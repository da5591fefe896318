-- What editors/neovim/test/run checks inside one headless Neovim, after
-- contrib.lua was installed one way (CONTRIB_TEST_ROUTE: `plugin` for
-- ~/.config/nvim/plugin/, `require` for lua/ and require('contrib') from
-- init.lua, `grammar` for plugin/ with vim.g.contrib_grammar set). It
-- opens CONTRIB_TEST_MANIFEST and checks the filetype, the options, the
-- highlighting and, on 0.11+, the language server: diagnostics, and
-- :ContribPreview, whose answer comes through client:request(). Exits 0
-- when all holds, 1 with what did not on standard error.

local route = os.getenv('CONTRIB_TEST_ROUTE')
local failures = {}

local function check(ok, what)
  if not ok then
    table.insert(failures, what)
  end
end

local function finish()
  local version = vim.version()
  local name = string.format('Neovim %d.%d.%d, %s', version.major, version.minor, version.patch, route)
  if #failures > 0 then
    io.stderr:write(name .. ': ' .. table.concat(failures, '; ') .. '\n')
    vim.cmd('cquit 1')
  end
  io.stdout:write(name .. ': ok\n')
  vim.cmd('qall!')
end

local ok, problem = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('CONTRIB_TEST_MANIFEST')))
  local buf = vim.api.nvim_get_current_buf()
  local bo = vim.bo[buf]
  check(bo.filetype == 'contrib', 'the filetype is `' .. bo.filetype .. '`, not contrib')
  check(bo.commentstring == '# %s', 'commentstring is `' .. bo.commentstring .. '`')
  check(bo.shiftwidth == 4 and bo.expandtab, 'indentation is not 4 spaces')

  -- Highlighting: the grammar when configured, else the `conf` syntax,
  -- set once the FileType event is over.
  local function grammar_active()
    local highlighter = vim.treesitter and vim.treesitter.highlighter
    return highlighter ~= nil and highlighter.active ~= nil and highlighter.active[buf] ~= nil
  end
  if route == 'grammar' then
    check(vim.wait(5000, grammar_active), 'tree-sitter does not highlight the buffer')
  else
    vim.wait(5000, function() return bo.syntax == 'conf' end)
    check(bo.syntax == 'conf', 'the syntax is `' .. bo.syntax .. '`, not the `conf` fallback')
    local group = vim.fn.synIDattr(vim.fn.synID(1, 1, 1), 'name')
    check(group == 'confComment', 'the first line, a comment, is highlighted as `' .. group .. '`')
  end

  if vim.fn.has('nvim-0.11') == 0 then
    return
  end
  local attached = vim.wait(30000, function()
    return #vim.lsp.get_clients({ bufnr = buf, name = 'contrib' }) > 0
  end)
  check(attached, 'the contrib language server did not attach')
  if not attached then
    return
  end
  local diagnosed = vim.wait(30000, function()
    for _, diagnostic in ipairs(vim.diagnostic.get(buf)) do
      if diagnostic.message:find('budget', 1, true) then
        return true
      end
    end
    return false
  end)
  check(diagnosed, 'no budget-unused diagnostic from the server')
  -- How the plugin calls the client: from 0.11 as a method,
  -- client:request() (the dot form is deprecated, and removed in 0.13).
  local client = vim.lsp.get_clients({ bufnr = buf, name = 'contrib' })[1]
  local as_method = nil
  local request = client.request
  client.request = function(first, ...)
    as_method = first == client
    return request(first, ...)
  end
  vim.cmd('ContribPreview')
  local preview = vim.fn.bufnr('contrib://what-the-model-is-told')
  local told = vim.wait(30000, function()
    local text = table.concat(vim.api.nvim_buf_get_lines(preview, 0, -1, false), '\n')
    return text:find('Answer plainly.', 1, true) ~= nil
  end)
  check(told, ':ContribPreview did not show the manifest\'s text: '
    .. table.concat(vim.api.nvim_buf_get_lines(preview, 0, 5, false), ' | '))
  check(as_method == true, 'the request was not sent as client:request()')
  local messages = vim.api.nvim_exec2('messages', { output = true }).output
  check(not messages:find('deprecated'), 'a deprecation was reported: ' .. messages)
end)
check(ok, 'an error: ' .. tostring(problem))
finish()
