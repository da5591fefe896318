// The `contrib` task type: `contrib check` on a workspace folder, its report
// read into the Problems panel by the problem matchers package.json declares.
//
// A folder's "contrib: check" task appears under Terminal → Run Task. In
// tasks.json the same task is written
//   { "type": "contrib", "command": "check", "paths": ["plugins"], "format": "github" }
'use strict';

const vscode = require('vscode');

const TYPE = 'contrib';

/**
 * The problem matchers for each report format. The human report marks
 * severity with a symbol (× or ⚠), which a matcher cannot map to a severity,
 * so errors and warnings have one matcher each.
 */
const MATCHERS = {
  human: ['$contrib-errors', '$contrib-warnings'],
  github: ['$contrib-github'],
};

/**
 * The task for `definition` in `folder`, run with `command` (the binary).
 * @param {vscode.WorkspaceFolder} folder
 * @param {{ type: string, command: string, paths?: string[], format?: string }} definition
 * @param {string} command
 */
function checkTask(folder, definition, command) {
  const format = definition.format === 'github' ? 'github' : 'human';
  const paths = Array.isArray(definition.paths) && definition.paths.length > 0 ? definition.paths : ['.'];
  const args = ['check', '--format', format, ...paths];
  const execution = new vscode.ProcessExecution(command, args, {
    cwd: folder.uri.fsPath,
    // Plain text for the matchers, whatever the terminal supports.
    env: { NO_COLOR: '1' },
  });
  const task = new vscode.Task(definition, folder, 'check', TYPE, execution, MATCHERS[format]);
  task.detail = `contrib ${args.join(' ')}`;
  task.group = vscode.TaskGroup.Test;
  return task;
}

/**
 * Registers the provider; `command` gives the configured binary at the time
 * a task is made, so a change of `contrib.path` applies to the next run.
 * @param {() => string} command
 * @returns {vscode.Disposable}
 */
function registerTasks(command) {
  return vscode.tasks.registerTaskProvider(TYPE, {
    provideTasks() {
      const folders = vscode.workspace.workspaceFolders || [];
      return folders.map((folder) => checkTask(folder, { type: TYPE, command: 'check' }, command()));
    },
    resolveTask(task) {
      const definition = task.definition;
      const folder = task.scope;
      if (definition.command !== 'check' || !folder || typeof folder !== 'object') {
        return undefined;
      }
      return checkTask(folder, definition, command());
    },
  });
}

module.exports = { registerTasks, checkTask, MATCHERS };
