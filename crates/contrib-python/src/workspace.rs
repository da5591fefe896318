//! `Workspace`: a workspace opened for hosting, and how its conversations
//! start and resume.

use std::fs::{File, OpenOptions};
use std::path::PathBuf;
use std::sync::Arc;

use contrib_runtime::{Said, Session, ToolDefinition};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::conversation::{Cell, Conversation};
use crate::convert::from_py;
use crate::errors;
use crate::host::{Log, PyGate, PyReader};

/// A workspace's approved plugins, loaded for hosting: only what
/// `contrib.lock` pins, each version re-checked under `contrib.toml`.
#[pyclass(module = "contrib_runtime", frozen)]
pub struct Workspace {
    inner: Arc<contrib_runtime::Workspace>,
}

/// What a conversation starts with, besides its session.
struct Options<'py> {
    gate: Bound<'py, PyAny>,
    profile: Option<String>,
    tools: Option<Bound<'py, PyAny>>,
    reader: Option<Bound<'py, PyAny>>,
}

#[pymethods]
impl Workspace {
    /// Opens the workspace in `folder`; `profiles`, a profiles file that
    /// replaces the shipped cache profiles.
    #[staticmethod]
    #[pyo3(signature = (folder, *, profiles = None))]
    fn open(py: Python<'_>, folder: PathBuf, profiles: Option<PathBuf>) -> PyResult<Workspace> {
        let opened = py.allow_threads(|| {
            let workspace = contrib_runtime::Workspace::open(&folder)?;
            match profiles {
                Some(path) => workspace.with_profiles(path),
                None => Ok(workspace),
            }
        });
        let workspace = opened.map_err(|error| errors::raise(py, &error))?;
        Ok(Workspace {
            inner: Arc::new(workspace),
        })
    }

    /// The folder it was opened from.
    #[getter]
    fn folder(&self) -> PathBuf {
        self.inner.folder().to_path_buf()
    }

    /// The plugin versions it composes, as `scope/name@version`.
    #[getter]
    fn plugins(&self) -> Vec<String> {
        self.inner.plugins()
    }

    /// The pinned versions loading refused, each with its reason.
    #[getter]
    fn refused_at_load(&self) -> Vec<String> {
        self.inner.refused_at_load().to_vec()
    }

    /// Starts a conversation: composes its kept system prompt and opening.
    #[pyo3(signature = (session, *, gate, profile = None, tools = None, reader = None, log_path = None))]
    #[allow(clippy::too_many_arguments)]
    fn start(
        &self,
        py: Python<'_>,
        session: &str,
        gate: Bound<'_, PyAny>,
        profile: Option<String>,
        tools: Option<Bound<'_, PyAny>>,
        reader: Option<Bound<'_, PyAny>>,
        log_path: Option<PathBuf>,
    ) -> PyResult<Conversation> {
        let file = log_path.map(|path| new_log(&path)).transpose()?;
        let options = Options {
            gate,
            profile,
            tools,
            reader,
        };
        self.begin(py, session, options, Log::new(&[], file), None)
    }

    /// Resumes the conversation `log` records (its whole text), with
    /// `said` as the host stored it (`Conversation.said`).
    #[pyo3(signature = (session, log, said, *, gate, profile = None, tools = None, reader = None, log_path = None))]
    #[allow(clippy::too_many_arguments)]
    fn resume(
        &self,
        py: Python<'_>,
        session: &str,
        log: Bound<'_, PyAny>,
        said: Bound<'_, PyAny>,
        gate: Bound<'_, PyAny>,
        profile: Option<String>,
        tools: Option<Bound<'_, PyAny>>,
        reader: Option<Bound<'_, PyAny>>,
        log_path: Option<PathBuf>,
    ) -> PyResult<Conversation> {
        let bytes: Vec<u8> = if log.is_instance_of::<PyString>() {
            log.extract::<String>()?.into_bytes()
        } else if let Ok(bytes) = log.downcast::<PyBytes>() {
            bytes.as_bytes().to_vec()
        } else {
            return Err(errors::InputError::new_err(
                "a session log is a str or bytes",
            ));
        };
        let said: Vec<Said> = from_py(&said, "what was said")?;
        let file = log_path
            .map(|path| OpenOptions::new().append(true).create(true).open(path))
            .transpose()
            .map_err(|error| pyo3::exceptions::PyOSError::new_err(error.to_string()))?;
        let options = Options {
            gate,
            profile,
            tools,
            reader,
        };
        let log = Log::new(&bytes, file);
        self.begin(py, session, options, log, Some((bytes, said)))
    }
}

impl Workspace {
    fn begin(
        &self,
        py: Python<'_>,
        session: &str,
        options: Options<'_>,
        log: Log,
        resume: Option<(Vec<u8>, Vec<Said>)>,
    ) -> PyResult<Conversation> {
        let session = Session::from_toml(session)
            .map_err(|reason| errors::session(py, reason.to_string()))?;
        let tools: Vec<ToolDefinition> = match &options.tools {
            Some(tools) => from_py(tools, "the tool definitions")?,
            None => Vec::new(),
        };
        let gate = PyGate(options.gate.unbind());
        let reader = options.reader.map(|reader| PyReader(reader.unbind()));
        let profile = options.profile;
        let writer = log.clone();
        let cell = Cell::try_new(Arc::clone(&self.inner), |workspace| {
            let mut starting = workspace
                .conversation(session, gate)
                .tools(tools)
                .log(writer);
            if let Some(profile) = profile {
                starting = starting.profile(profile);
            }
            if let Some(reader) = reader {
                starting = starting.reader(reader);
            }
            match resume {
                None => starting.start(),
                Some((bytes, said)) => starting.resume(&bytes, said),
            }
        })
        .map_err(|error| errors::raise(py, &error))?;
        Ok(Conversation::new(cell, log))
    }
}

/// A new conversation's log file. An existing file is another
/// conversation's log, never overwritten: `FileExistsError`, naming it.
fn new_log(path: &std::path::Path) -> PyResult<File> {
    contrib_runtime::create_log_file(path).map_err(|error| match error.kind() {
        std::io::ErrorKind::AlreadyExists => {
            pyo3::exceptions::PyFileExistsError::new_err(error.to_string())
        }
        _ => pyo3::exceptions::PyOSError::new_err(format!(
            "cannot create `{}`: {error}",
            path.display()
        )),
    })
}
