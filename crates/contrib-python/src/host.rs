//! The host's side, written in Python: the gate contributors' tool calls
//! go through, the reader eager loads read skill operations with, and the
//! session log the conversation writes.

use std::cell::RefCell;
use std::fs::File;
use std::io::Write;
use std::rc::Rc;

use contrib_runtime::{Gate, GateOutcome, GateRequest, Reader};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::convert::to_py;

/// A Python callable as the gate: called with the request as a dict
/// (`contributor`, `tool`, `arguments`, `effect`, `gated`, `at`); it
/// returns the output (`str`), or `{"outcome": "ran", "output": …}`,
/// `{"outcome": "refused", "reason": …}`, `{"outcome": "pending",
/// "reason": …}`. A gate that raises refuses the call, the exception
/// its reason.
pub struct PyGate(pub Py<PyAny>);

impl Gate for PyGate {
    fn call(&mut self, request: &GateRequest) -> GateOutcome {
        Python::with_gil(|py| {
            let answer = to_py(py, request)
                .and_then(|request| self.0.bind(py).call1((request,)))
                .and_then(|answer| outcome(&answer));
            answer.unwrap_or_else(|error| GateOutcome::Refused {
                reason: format!("the host's gate failed: {error}"),
            })
        })
    }
}

fn outcome(answer: &Bound<'_, PyAny>) -> PyResult<GateOutcome> {
    if let Ok(output) = answer.downcast::<PyString>() {
        return Ok(GateOutcome::Ran {
            output: output.to_string(),
        });
    }
    let dict = answer.downcast::<PyDict>().map_err(|_| {
        crate::errors::InputError::new_err(
            "a gate returns a str or a dict with `outcome` (`ran`, `refused`, `pending`)",
        )
    })?;
    let text = |key: &str| -> PyResult<String> {
        dict.get_item(key)?
            .ok_or_else(|| {
                crate::errors::InputError::new_err(format!("the gate's answer has no `{key}`"))
            })?
            .extract()
    };
    match text("outcome")?.as_str() {
        "ran" => Ok(GateOutcome::Ran {
            output: text("output")?,
        }),
        "refused" => Ok(GateOutcome::Refused {
            reason: text("reason")?,
        }),
        "pending" => Ok(GateOutcome::Pending {
            reason: text("reason")?,
        }),
        other => Err(crate::errors::InputError::new_err(format!(
            "there is no gate outcome `{other}`; there are: ran, refused, pending"
        ))),
    }
}

/// A Python callable as the reader: `reader(skill, version, operation)`
/// returns the operation's text, or `None` when the host has none. A
/// reader that raises has none.
pub struct PyReader(pub Py<PyAny>);

impl Reader for PyReader {
    fn operation(
        &mut self,
        skill: &str,
        version: &semver::Version,
        operation: &str,
    ) -> Option<String> {
        Python::with_gil(|py| {
            self.0
                .bind(py)
                .call1((skill, version.to_string(), operation))
                .and_then(|text| text.extract::<Option<String>>())
                .ok()
                .flatten()
        })
    }
}

/// The session log: kept whole in memory (what a host stores, and resumes
/// from), and appended to a file as it goes when the host names one.
#[derive(Clone)]
pub struct Log {
    pub text: Rc<RefCell<Vec<u8>>>,
    file: Option<Rc<RefCell<File>>>,
}

impl Log {
    /// A log that begins with `earlier` (a resumed conversation's log).
    pub fn new(earlier: &[u8], file: Option<File>) -> Log {
        Log {
            text: Rc::new(RefCell::new(earlier.to_vec())),
            file: file.map(|file| Rc::new(RefCell::new(file))),
        }
    }
}

impl Write for Log {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if let Some(file) = &self.file {
            file.borrow_mut().write_all(bytes)?;
        }
        self.text.borrow_mut().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &self.file {
            Some(file) => file.borrow_mut().flush(),
            None => Ok(()),
        }
    }
}
